//! The shared variant table (`tests/tables/variants.json`): this crate's expander
//! must produce exactly the derived inputs it lists, as the Python and JS ones do.

use std::path::Path;

use hanzo_conformance::variants::derived;
use hanzo_conformance::vectors::VectorFile;
use serde_json::{json, Value};

fn table() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/tables/variants.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("the variant table is JSON")
}

#[test]
fn limits_match_the_table() {
    let limits = &table()["limits"];
    assert_eq!(
        limits["all_splits_up_to"],
        json!(hanzo_conformance::variants::ALL_SPLITS_UP_TO)
    );
    assert_eq!(
        limits["split_points"],
        json!(hanzo_conformance::variants::SPLIT_POINTS)
    );
    assert_eq!(
        limits["preferred_splits"],
        json!(hanzo_conformance::variants::PREFERRED_SPLITS)
    );
    let preferred: Vec<String> = hanzo_conformance::variants::PREFERRED
        .iter()
        .map(char::to_string)
        .collect();
    assert_eq!(limits["preferred"], json!(preferred));
}

#[test]
fn every_table_case() {
    let table = table();
    let cases = table["cases"].as_array().expect("cases");
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let file = VectorFile::from_json(&json!({
            "domain": "table", "cases": [], "variants": case["variants"]
        }))
        .expect("the table's variants parse");
        let input = &case["input"];
        let got = derived(input, &file.variants);
        let verdict = match (got, case.get("error")) {
            (Err(error), Some(kind)) if kind == error.kind() => Ok(()),
            (Err(error), _) => Err(format!("error {} ({error})", error.kind())),
            (Ok(_), Some(kind)) => Err(format!("expanded, but the table wants error {kind}")),
            (Ok(runs), None) => {
                let runs: Vec<(String, Value)> = runs.collect();
                if let Some(expansions) = case.get("expansions") {
                    let got: Vec<Value> = runs
                        .into_iter()
                        .map(|(name, input)| json!({"name": name, "input": input}))
                        .collect();
                    if &Value::Array(got.clone()) == expansions {
                        Ok(())
                    } else {
                        Err(format!("got {}", Value::Array(got)))
                    }
                } else {
                    let names: Vec<Value> = runs.into_iter().map(|(n, _)| json!(n)).collect();
                    if Value::Array(names.clone()) == case["names"] {
                        Ok(())
                    } else {
                        Err(format!("got names {}", Value::Array(names)))
                    }
                }
            }
        };
        if let Err(problem) = verdict {
            failures.push(format!("{name}: {problem}"));
        }
    }
    assert!(
        failures.is_empty(),
        "variant table:\n{}",
        failures.join("\n")
    );
}
