// The JSON layer: domain name -> run(input) -> output (throws HanzoError for a
// contract error). Used by the worker (adapters/js_worker) and by `node --test`.

/** @type {Record<string, (input: any) => any>} */
export const DOMAINS = {
};
