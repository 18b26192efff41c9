//! `hanzo_conformance_rust`: the Rust platform of the conformance harness, for Python.
//!
//! A thin binding over [`hanzo_conformance::batch`]: every function takes and returns
//! JSON text, so the only Python objects crossing the boundary are strings.
//! `adapters/rust.py` drives it; `hanzo_conformance_rust.pyi` documents it for Python.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde_json::Value;

use hanzo_conformance::batch;

/// A request the harness got wrong is a `ValueError` in Python.
#[allow(clippy::needless_pass_by_value)] // used as `map_err(value_error)`
fn value_error(error: batch::BadRequest) -> PyErr {
    PyValueError::new_err(error.0)
}

/// `{"name", "version", "language", "domains"}` of this platform, as JSON.
#[pyfunction]
fn implementation() -> String {
    batch::implementation()
}

/// Run a JSON array of `{id, domain, input}` requests without the GIL; the
/// responses as a JSON array, one per request, in order.
#[pyfunction]
fn run_batch(py: Python<'_>, requests_json: &str) -> PyResult<String> {
    py.detach(|| batch::run_batch(requests_json))
        .map_err(value_error)
}

/// Answer one worker-protocol `run` line (`{"cmd": "run", "id", "domain", "input"}`,
/// UTF-8) without the GIL: the response line (`{"id", ...}` and a newline), or `None`
/// when the line is not a request [`batch::run_request`] accepts (not UTF-8, not JSON,
/// a lone surrogate in the input, no string id ...): the caller then takes its slow
/// path, which reports it. The served child (`adapters/serve.py`) calls this for
/// each request, so no Python object is made per case on either side of the call.
///
/// A line with `"expect": "<JSON text>"` (the expect extension, docs/protocol.md) whose
/// output is that JSON value is answered with the line `=` instead (see [`as_expected`]);
/// one with `"expect_error": "<code>"` (the expect-error extension) whose contract error
/// has that code, with the line `!"<message>"` (the message as a JSON string).
#[pyfunction]
fn run_line<'py>(py: Python<'py>, line: &[u8]) -> Option<Bound<'py, PyBytes>> {
    let answer = py.detach(|| answer_line(line))?;
    Some(PyBytes::new(py, answer.as_bytes()))
}

/// The acknowledgement of the expect extension: "my output is the expected value".
const ACK: &str = "=\n";

/// The response line for one request line (a `run` message is a request with more
/// keys, `cmd` and maybe `expect` or `expect_error`, which the batch ignores).
fn answer_line(line: &[u8]) -> Option<String> {
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
    let (id, answered) = batch::answer_request(&request).ok()?;
    let mut answer = match (answered, expect_error) {
        (batch::Answered::Error(error), Some(code)) if error.code == code => {
            // The expect-error extension: the expected code, so only the message goes.
            return Some(error_acknowledgement(&error.message));
        }
        (answered, _) => answered.response(id),
    };
    if let Some(expect) = expect {
        let id = id.to_string();
        if output_text(&answer, &id).is_some_and(|output| as_expected(output, &expect)) {
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

/// The extension module.
#[pymodule]
fn hanzo_conformance_rust(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(implementation, m)?)?;
    m.add_function(wrap_pyfunction!(run_batch, m)?)?;
    m.add_function(wrap_pyfunction!(run_line, m)?)?;
    Ok(())
}
