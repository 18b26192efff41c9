// The shared variant table (../../tests/tables/variants.json): this expander must
// produce exactly the derived inputs it lists, as the Python and Rust ones do.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import {
  ALL_SPLITS_UP_TO,
  PREFERRED,
  PREFERRED_SPLITS,
  SPLIT_POINTS,
  VariantError,
  expandVariants,
} from "./variants.js";

/**
 * @typedef {{name: string, variants: import("./compare.js").Variant[], input: unknown,
 *   expansions?: {name: string, input: unknown}[], names?: string[], error?: string}} TableCase
 */

const table = JSON.parse(readFileSync(new URL("../../tests/tables/variants.json", import.meta.url), "utf8"));

describe("variant table", () => {
  test("limits", () => {
    assert.deepEqual(table.limits, {
      all_splits_up_to: ALL_SPLITS_UP_TO,
      split_points: SPLIT_POINTS,
      preferred_splits: PREFERRED_SPLITS,
      preferred: [...PREFERRED],
    });
  });

  for (const entry of /** @type {TableCase[]} */ (table.cases)) {
    test(entry.name, () => {
      if (entry.error !== undefined) {
        assert.throws(
          () => expandVariants(entry.input, entry.variants),
          (err) => err instanceof VariantError && err.kind === entry.error,
        );
        return;
      }
      const before = structuredClone(entry.input);
      const derived = [...expandVariants(entry.input, entry.variants)];
      assert.deepEqual(entry.input, before, "the case input is not modified");
      if (entry.expansions !== undefined) {
        assert.deepEqual(
          derived.map((d) => ({ name: d.chunking, input: d.input })),
          entry.expansions,
        );
      } else {
        assert.deepEqual(
          derived.map((d) => d.chunking),
          entry.names,
        );
      }
    });
  }
});

test("a long case is expanded one derived input at a time", () => {
  const text = `data: ${"x".repeat(1_000_000)}\n\n`;
  const runs = expandVariants({ chunks: [text] }, [{ kind: "rechunk", path: "/chunks" }]);
  assert.equal(runs.next().value?.chunking, "one-per-chunk");
  let rest = 0;
  for (const run of runs) {
    rest += 1;
    assert.equal(/** @type {{chunks: string[]}} */ (run.input).chunks.join(""), text);
  }
  assert.equal(rest, SPLIT_POINTS);
});
