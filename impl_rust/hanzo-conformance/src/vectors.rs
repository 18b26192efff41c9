//! Reading vector files and checking one platform's results against them.
//!
//! This is the native (Python-free) runner used by `tests/vectors.rs`: it parses a
//! vector file (`docs/architecture.md`, "Vector files"), expands each case into its
//! `variants` (rechunkings), and compares results with [`crate::compare::Rules`].
//! Shape validation against the JSON Schemas stays with the Python harness; this
//! module only rejects files it cannot interpret.

use serde_json::Value;

use crate::compare::{Difference, Pattern, Rules};
use crate::variants::{self, VariantError};
use crate::CaseError;

/// The label of a case's input as written in the vector file.
pub const AS_GIVEN: &str = "as-given";

/// What a case expects: an output, or a contract error code.
#[derive(Debug, Clone, PartialEq)]
pub enum Expectation {
    /// The `expected` output.
    Output(Value),
    /// The `error` code.
    Error(String),
}

/// One case of a vector file.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The case's kebab-case id.
    pub id: String,
    /// The input passed to the domain's `run`.
    pub input: Value,
    /// The expected output or error code.
    pub expect: Expectation,
}

/// One entry of a vector file's `variants`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Variant {
    /// Re-split the list of strings at `path` one code point per chunk, and in two
    /// at a bounded set of code point boundaries ([`crate::variants`]).
    Rechunk {
        /// Where the list of strings is in the input.
        path: String,
    },
}

/// A parsed vector file.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorFile {
    /// The kebab-case domain.
    pub domain: String,
    /// The `comparison` rules.
    pub rules: Rules,
    /// The `variants`.
    pub variants: Vec<Variant>,
    /// The cases, in file order.
    pub cases: Vec<Case>,
}

impl VectorFile {
    /// Interpret a vector file's JSON.
    ///
    /// # Errors
    /// A message naming the first thing that is missing or malformed.
    pub fn from_json(document: &Value) -> Result<Self, String> {
        let domain = document
            .get("domain")
            .and_then(Value::as_str)
            .ok_or("missing string \"domain\"")?
            .to_owned();
        let rules = Rules::from_json(document.get("comparison"))?;
        let variants = match document.get("variants") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(variant_from_json)
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("\"variants\" must be an array".to_owned()),
        };
        let cases = document
            .get("cases")
            .and_then(Value::as_array)
            .ok_or("missing array \"cases\"")?
            .iter()
            .enumerate()
            .map(|(index, case)| case_from_json(case).map_err(|e| format!("/cases/{index}: {e}")))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            domain,
            rules,
            variants,
            cases,
        })
    }
}

fn variant_from_json(variant: &Value) -> Result<Variant, String> {
    match (
        variant.get("kind").and_then(Value::as_str),
        variant.get("path"),
    ) {
        (Some("rechunk"), Some(Value::String(path))) => {
            Pattern::parse(path)?;
            Ok(Variant::Rechunk { path: path.clone() })
        }
        _ => Err(format!("unknown variant {variant}")),
    }
}

fn case_from_json(case: &Value) -> Result<Case, String> {
    let id = case
        .get("id")
        .and_then(Value::as_str)
        .ok_or("missing string \"id\"")?
        .to_owned();
    let input = case
        .get("input")
        .cloned()
        .ok_or_else(|| format!("{id}: missing \"input\""))?;
    let expect = match (case.get("expected"), case.get("error")) {
        (Some(expected), None) => Expectation::Output(expected.clone()),
        (None, Some(Value::String(code))) => Expectation::Error(code.clone()),
        _ => {
            return Err(format!(
                "{id}: needs exactly one of \"expected\" or string \"error\""
            ))
        }
    };
    Ok(Case { id, input, expect })
}

/// The inputs a case is run with, made one at a time: `(label, input)`, the case
/// as given first, then each variant's derived inputs ([`crate::variants`]).
///
/// # Errors
/// When a variant does not apply to `input` (the vector file is wrong; the Python
/// harness rejects it too).
pub fn expand<'a>(
    input: &'a Value,
    variants: &'a [Variant],
) -> Result<impl Iterator<Item = (String, Value)> + 'a, VariantError> {
    let derived = variants::derived(input, variants)?;
    Ok(std::iter::once((AS_GIVEN.to_owned(), input.clone())).chain(derived))
}

/// How one run of a case ended on the platform.
pub type RunResult = Result<Result<Value, CaseError>, String>;

/// One way a case's run did not match the vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// The case id.
    pub case: String,
    /// Which input: [`AS_GIVEN`], `one-per-chunk` or `split@k`.
    pub variant: String,
    /// JSON pointer into the output (`""` for the whole result).
    pub pointer: String,
    /// What the vector expects there.
    pub expected: String,
    /// What the platform produced there.
    pub actual: String,
}

/// Run every input of `case` through `run` and list every mismatch.
///
/// `run` returns `Ok(Ok(output))`, `Ok(Err(contract_error))`, or `Err(message)`
/// when the implementation crashed (panicked).
pub fn check_case(
    file: &VectorFile,
    case: &Case,
    mut run: impl FnMut(&Value) -> RunResult,
) -> Vec<Mismatch> {
    let mut mismatches = Vec::new();
    let runs = match expand(&case.input, &file.variants) {
        Ok(runs) => runs,
        Err(problem) => {
            return vec![Mismatch {
                case: case.id.clone(),
                variant: "(variants)".to_owned(),
                pointer: String::new(),
                expected: "an input the file's variants apply to".to_owned(),
                actual: problem.to_string(),
            }]
        }
    };
    for (variant, input) in runs {
        let mismatch = |pointer: String, expected: String, actual: String| Mismatch {
            case: case.id.clone(),
            variant: variant.clone(),
            pointer,
            expected,
            actual,
        };
        match (&case.expect, run(&input)) {
            (_, Err(crash)) => {
                mismatches.push(mismatch(
                    String::new(),
                    describe(&case.expect),
                    crash_text(&crash),
                ));
            }
            (Expectation::Output(expected), Ok(Ok(actual))) => {
                let diffs = file.rules.compare(&input, expected, &actual);
                mismatches.extend(diffs.into_iter().map(|d| {
                    let Difference {
                        pointer,
                        expected,
                        actual,
                        note,
                    } = d;
                    let actual = match note {
                        Some(note) => format!("{} ({note})", show(actual.as_ref())),
                        None => show(actual.as_ref()),
                    };
                    mismatch(pointer, show(expected.as_ref()), actual)
                }));
            }
            (Expectation::Error(code), Ok(Err(error))) if *code == error.code => {}
            (expect, Ok(Err(error))) => mismatches.push(mismatch(
                String::new(),
                describe(expect),
                format!("error {:?} ({})", error.code, error.message),
            )),
            (expect @ Expectation::Error(_), Ok(Ok(actual))) => mismatches.push(mismatch(
                String::new(),
                describe(expect),
                format!("output {}", show(Some(&actual))),
            )),
        }
    }
    mismatches
}

fn crash_text(message: &str) -> String {
    format!("crash: {message}")
}

fn describe(expect: &Expectation) -> String {
    match expect {
        Expectation::Output(v) => format!("output {}", show(Some(v))),
        Expectation::Error(code) => format!("error {code:?}"),
    }
}

/// Compact JSON, shortened past 300 characters; `(absent)` for nothing.
fn show(value: Option<&Value>) -> String {
    const LIMIT: usize = 300;
    let Some(value) = value else {
        return "(absent)".to_owned();
    };
    let text = value.to_string();
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => {
            format!(
                "{}… ({} chars)",
                text.get(..cut).unwrap_or_default(),
                text.chars().count()
            )
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(document: &Value) -> VectorFile {
        VectorFile::from_json(document).expect("test vector file is well-formed")
    }

    #[test]
    fn expand_rechunks_by_code_point() {
        let variants = [Variant::Rechunk {
            path: "/chunks".to_owned(),
        }];
        let input = json!({"chunks": ["aé", "😀"], "keep": 1});
        let runs: Vec<_> = expand(&input, &variants).expect("strings").collect();
        let labels: Vec<&str> = runs.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["as-given", "one-per-chunk", "split@1", "split@2"]);
        assert_eq!(runs[1].1, json!({"chunks": ["a", "é", "😀"], "keep": 1}));
        assert_eq!(runs[2].1, json!({"chunks": ["a", "é😀"], "keep": 1}));
        assert_eq!(runs[3].1, json!({"chunks": ["aé", "😀"], "keep": 1}));
    }

    #[test]
    fn expand_rejects_inputs_without_strings_at_the_path() {
        let variants = [Variant::Rechunk {
            path: "/chunks".to_owned(),
        }];
        assert!(expand(&json!({"other": 1}), &variants).is_err());
        assert!(expand(&json!({"chunks": [1, 2]}), &variants).is_err());
        // Empty text: only the one-per-chunk variant (an empty list).
        let input = json!({"chunks": [""]});
        let runs: Vec<_> = expand(&input, &variants).expect("strings").collect();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[1].1, json!({"chunks": []}));
    }

    #[test]
    fn from_json_rejects_malformed_files() {
        assert!(VectorFile::from_json(&json!({"cases": []})).is_err());
        let both = json!({"domain": "d", "cases": [
            {"id": "x", "input": {}, "expected": 1, "error": "e"}
        ]});
        assert!(VectorFile::from_json(&both).is_err());
        let variant =
            json!({"domain": "d", "cases": [], "variants": [{"kind": "shuffle", "path": ""}]});
        assert!(VectorFile::from_json(&variant).is_err());
    }

    /// A toy domain: upper-cases the joined chunks; errors on empty text. It gets
    /// the last chunk wrong when it is a single code point, to show that rechunked
    /// variants catch chunking bugs the as-given input does not.
    #[allow(clippy::unnecessary_wraps)] // the shape `check_case` takes
    fn toy(input: &Value) -> RunResult {
        let chunks: Vec<&str> = input["chunks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let text: String = chunks.concat();
        if text.is_empty() {
            return Ok(Err(CaseError::new("empty", "no text")));
        }
        let mut upper = text.to_uppercase();
        if chunks.len() > 1 && chunks.last().is_some_and(|c| c.chars().count() == 1) {
            upper.pop();
        }
        Ok(Ok(json!({"text": upper})))
    }

    #[test]
    fn check_case_reports_variant_and_pointer() {
        let f = file(&json!({
            "domain": "toy",
            "variants": [{"kind": "rechunk", "path": "/chunks"}],
            "cases": [
                {"id": "ok", "input": {"chunks": ["ab"]}, "expected": {"text": "AB"}},
                {"id": "wrong", "input": {"chunks": ["ab"]}, "expected": {"text": "XY"}},
                {"id": "err", "input": {"chunks": [""]}, "error": "empty"},
                {"id": "err-code", "input": {"chunks": [""]}, "error": "other"},
                {"id": "want-err", "input": {"chunks": ["a"]}, "error": "empty"}
            ]
        }));
        let results: Vec<Vec<Mismatch>> = f
            .cases
            .iter()
            .map(|case| check_case(&f, case, toy))
            .collect();
        // "ok": as-given passes; one-per-chunk and split@1 end in a one-code-point chunk.
        let ok: Vec<(&str, &str)> = results[0]
            .iter()
            .map(|m| (m.variant.as_str(), m.pointer.as_str()))
            .collect();
        assert_eq!(ok, [("one-per-chunk", "/text"), ("split@1", "/text")]);
        assert_eq!(results[0][0].expected, "\"AB\"");
        assert_eq!(results[0][0].actual, "\"A\"");
        assert_eq!(results[1].len(), 3, "wrong output fails on every variant");
        assert!(
            results[2].is_empty(),
            "right error code passes: {:?}",
            results[2]
        );
        assert_eq!(
            results[3].len(),
            2,
            "wrong error code fails (as-given, one-per-chunk)"
        );
        assert!(results[3][0].actual.contains("\"empty\""));
        assert!(
            results[4][0].actual.starts_with("output"),
            "output where an error was due"
        );
    }

    #[test]
    fn crashes_are_mismatches() {
        let f = file(&json!({"domain": "toy", "cases": [
            {"id": "c", "input": {}, "expected": {}}
        ]}));
        let found = check_case(&f, &f.cases[0], |_| Err("boom".to_owned()));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].actual, "crash: boom");
    }

    #[test]
    fn show_truncates_long_values() {
        let long = Value::String("é".repeat(1000));
        let text = show(Some(&long));
        assert!(text.ends_with("(1002 chars)"), "{text}");
        assert_eq!(show(None), "(absent)");
    }
}
