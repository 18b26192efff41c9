//! The worker protocol's lines, answered in one call: a `run` message (JSON) or a
//! tab-run line in, the answer line out, with the expect, expect-error and tab-run
//! extensions (docs/protocol.md). The served `rust` child calls it per case through
//! the binding's `run_line` (`impl_rust/hanzo-conformance-py`), so it lives here,
//! where `cargo test` reaches it.

use serde_json::{Map, Value};

use crate::batch;

/// The acknowledgement of the expect extension: "my output is the expected value".
const ACK: &str = "=\n";

/// The answer line (with its newline) to one request line: a `run` message (JSON), or
/// a tab-run line (any line that does not begin with `{`).
///
/// A request with `expect` (the expected output's JSON text) whose output is that JSON
/// value is answered `=` (see [`as_expected`]); one with `expect_error` (a code) whose
/// contract error has that code, `!"<message>"` (the message as a JSON string); any
/// other, with the response [`batch::run_request`] writes. `None` when the line is not
/// a request that function accepts (not UTF-8, not JSON, a lone surrogate in the input,
/// no string id, a tab-run line not taken apart ...): the caller's slow path then
/// reports it.
#[must_use]
pub fn answer_line(line: &[u8]) -> Option<String> {
    if line.first() == Some(&b'{') {
        answer_json_line(line)
    } else {
        answer_tab_line(line)
    }
}

/// A `run` message is a request with more keys, `cmd` and maybe `expect` or
/// `expect_error`, which the batch ignores.
fn answer_json_line(line: &[u8]) -> Option<String> {
    let mut request: Value = serde_json::from_slice(line).ok()?;
    let fields = request.as_object_mut()?;
    let expect = match fields.remove("expect") {
        None => None,
        Some(Value::String(text)) => Some(text),
        Some(_) => return None, // not the harness's spelling: the slow path says so
    };
    let expect_error = match fields.remove("expect_error") {
        None => None,
        Some(Value::String(code)) => Some(code),
        Some(_) => return None,
    };
    answer_expecting(&request, expect.as_deref(), expect_error.as_deref())
}

/// A tab-run line, `<id> TAB <domain> TAB <expectation> TAB <input JSON>`, answered as
/// the `run` message it stands for. The input is parsed once, straight into the
/// request (never written back to text). `None` for a line that is not taken apart
/// (not four fields, not UTF-8, an input that is not JSON, an expectation that is
/// neither empty nor `=…` nor `!…`), as for a `run` line that is not JSON: the caller's
/// ordinary path then answers it with a crash for its id.
fn answer_tab_line(line: &[u8]) -> Option<String> {
    let mut fields = line.splitn(4, |&byte| byte == b'\t');
    let mut text = || std::str::from_utf8(fields.next()?).ok();
    let (id, domain, expectation) = (text()?, text()?, text()?);
    let input = fields.next()?;
    if input.contains(&b'\t') {
        return None; // more than four fields
    }
    let (expect, expect_error) = match expectation.as_bytes().first() {
        None => (None, None),
        Some(b'=') => (Some(&expectation[1..]), None),
        Some(b'!') => (None, Some(&expectation[1..])),
        Some(_) => return None,
    };
    let request = Value::Object(Map::from_iter([
        ("id".to_owned(), Value::from(id)),
        ("domain".to_owned(), Value::from(domain)),
        ("input".to_owned(), serde_json::from_slice(input).ok()?),
    ]));
    answer_expecting(&request, expect, expect_error)
}

/// The answer line to `request`: `=` when its output is `expect` (see [`as_expected`]),
/// `!"<message>"` when its contract error has the code `expect_error`, else the response.
fn answer_expecting(
    request: &Value,
    expect: Option<&str>,
    expect_error: Option<&str>,
) -> Option<String> {
    let (id, answered) = batch::answer_request(request).ok()?;
    let mut answer = match (answered, expect_error) {
        (batch::Answered::Error(error), Some(code)) if error.code == code => {
            // The expect-error extension: the expected code, so only the message goes.
            return Some(error_acknowledgement(&error.message));
        }
        (answered, _) => answered.response(id),
    };
    if let Some(expect) = expect {
        let id = id.to_string();
        if output_text(&answer, &id).is_some_and(|output| as_expected(output, expect)) {
            return Some(ACK.to_owned());
        }
    }
    answer.push('\n');
    Some(answer)
}

/// The expect-error extension's answer line: `!` and the message as a JSON string.
fn error_acknowledgement(message: &str) -> String {
    let mut line = String::with_capacity(message.len() + 4);
    line.push('!');
    // A `String` always serializes (serde escapes what JSON needs).
    line.push_str(&Value::from(message).to_string());
    line.push('\n');
    line
}

/// The output's text in a response `{"id":<id>,"output":<output>}` as
/// [`batch::run_request`] writes one (an error or a crash starts otherwise).
fn output_text<'a>(response: &'a str, id: &str) -> Option<&'a str> {
    response
        .strip_prefix("{\"id\":")?
        .strip_prefix(id)?
        .strip_prefix(",\"output\":")?
        .strip_suffix('}')
}

/// Whether the output text `output` is the JSON value whose text is `expect`: the same
/// text, or else the same value (serde writes object keys sorted, the harness in the
/// vector's order). `Value` equality never takes a boolean for a number, nor an
/// integer for a float (`1` and `1.0` differ here: the harness judges that answer);
/// objects are equal whatever their key order; floats are parsed exactly
/// (`float_roundtrip`), as Python parses the expected text.
///
/// Most outputs are written from a `Value` (keys sorted), so the expected value written
/// the same way is compared with the output's text first: equal texts of two `Value`s
/// are equal values, and the output is then never parsed.
fn as_expected(output: &str, expect: &str) -> bool {
    if output == expect {
        return true;
    }
    let Ok(wanted) = serde_json::from_str::<Value>(expect) else {
        return false;
    };
    // The text, not the `Value` (`wanted == output` would ask whether `wanted` is that
    // JSON string).
    serde_json::to_string(&wanted).is_ok_and(|text| text == output)
        || serde_json::from_str::<Value>(output).is_ok_and(|got| got == wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    fn tab(id: &str, expectation: &str, input: &str) -> Option<String> {
        answer_line(format!("{id}\toauth-pkce\t{expectation}\t{input}\n").as_bytes())
    }

    fn verifier(verifier: &str) -> String {
        format!(r#"{{"verifier":"{verifier}"}}"#)
    }

    fn output(id: &str) -> String {
        format!("{{\"id\":\"{id}\",\"output\":{{\"challenge\":\"{CHALLENGE}\"}}}}\n")
    }

    #[test]
    fn a_tab_line_with_its_output_expected_is_acknowledged() {
        let expected = format!(r#"={{"challenge":"{CHALLENGE}"}}"#);
        assert_eq!(
            tab("k#0", &expected, &verifier(VERIFIER)).as_deref(),
            Some("=\n")
        );
        // Another spelling of the same value: acknowledged, as on a run line.
        let spaced = format!(r#"={{ "challenge" : "{CHALLENGE}" }}"#);
        assert_eq!(
            tab("k#0", &spaced, &verifier(VERIFIER)).as_deref(),
            Some("=\n")
        );
    }

    #[test]
    fn a_tab_line_expecting_another_output_gets_the_whole_response() {
        let wrong = format!(r#"={{"challenge":"x{}"}}"#, &CHALLENGE[1..]);
        assert_eq!(tab("k#0", &wrong, &verifier(VERIFIER)), Some(output("k#0")));
        assert_eq!(
            tab("k#0", "=not json", &verifier(VERIFIER)),
            Some(output("k#0"))
        );
        let error_expected = tab("k#0", "!invalid_verifier", &verifier(VERIFIER));
        assert_eq!(error_expected, Some(output("k#0")));
        assert_eq!(tab("k#0", "", &verifier(VERIFIER)), Some(output("k#0")));
    }

    #[test]
    fn a_tab_line_expecting_its_error_code_gets_the_message_only() {
        let short = verifier("abc");
        let acknowledged = tab("a#0", "!invalid_verifier", &short).expect("answered");
        let message = acknowledged
            .strip_prefix('!')
            .and_then(|rest| rest.strip_suffix('\n'))
            .expect("!<message>");
        assert!(
            serde_json::from_str::<Value>(message).is_ok_and(|m| m.is_string()),
            "{acknowledged}"
        );
        let whole = format!(
            "{{\"error\":{{\"code\":\"invalid_verifier\",\"message\":{message}}},\"id\":\"b#0\"}}\n"
        );
        assert_eq!(tab("b#0", "!invalid_verifie", &short), Some(whole.clone()));
        assert_eq!(tab("b#0", "", &short), Some(whole.clone()));
        assert_eq!(tab("b#0", "={}", &short), Some(whole));
    }

    #[test]
    fn a_tab_line_is_answered_as_its_run_line() {
        let expected = format!(r#"{{"challenge":"{CHALLENGE}"}}"#);
        let good = verifier(VERIFIER);
        for (expectation, extension) in [
            (
                format!("={expected}"),
                format!(",\"expect\":{}", Value::from(&*expected)),
            ),
            ("=[]".to_owned(), ",\"expect\":\"[]\"".to_owned()),
            (
                "!invalid_verifier".to_owned(),
                ",\"expect_error\":\"invalid_verifier\"".to_owned(),
            ),
            (String::new(), String::new()),
        ] {
            // (Not a crash: its detail holds a backtrace, which differs by caller.)
            for case_input in [good.as_str(), r#"{"verifier":"abc"}"#] {
                let json = format!(
                    "{{\"cmd\":\"run\",\"id\":\"\u{e9}\\\"#1\",\"domain\":\"oauth-pkce\",\"input\":{case_input}{extension}}}"
                );
                let by_json = answer_line(json.as_bytes());
                assert!(by_json.is_some(), "{json}");
                assert_eq!(
                    tab("\u{e9}\"#1", &expectation, case_input),
                    by_json,
                    "{json}"
                );
            }
        }
    }

    #[test]
    fn a_tab_line_not_taken_apart_is_left_to_the_caller() {
        let good = verifier(VERIFIER);
        for line in [
            "k#0\toauth-pkce\t=1".to_owned(),
            format!("k#0\toauth-pkce\t\t{good}\t"),
            format!("k#0\toauth-pkce\t\t{good}\textra"),
            "k#0\toauth-pkce\t\t{\"verifier\":".to_owned(),
            "k#0\toauth-pkce\t\t{\"verifier\":\"\\ud800\"}".to_owned(),
            format!("k#0\toauth-pkce\t?\t{good}"),
            String::new(),
        ] {
            assert_eq!(answer_line(line.as_bytes()), None, "{line:?}");
        }
        for bytes in [
            b"k#0\toauth-pkce\t\t\xff".as_slice(),
            b"k\xff\toauth-pkce\t\t{}",
            b"k#0\toauth-pkce\t=\xff\t{}",
        ] {
            assert_eq!(answer_line(bytes), None, "{bytes:?}");
        }
    }

    #[test]
    fn a_tab_line_for_a_domain_not_implemented_is_a_crash_for_its_id() {
        let answer = answer_line(b"k#0\tno-such-domain\t\t{}").expect("answered");
        assert!(answer.starts_with(r#"{"crash":{"#), "{answer}");
        assert!(answer.ends_with(",\"id\":\"k#0\"}\n"), "{answer}");
    }
}
