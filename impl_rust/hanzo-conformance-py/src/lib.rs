//! `hanzo_conformance_rust`: the Rust platform of the conformance harness, for Python.
//!
//! A thin binding over [`hanzo_conformance::batch`] and [`hanzo_conformance::line`]: every function takes and returns
//! JSON text, so the only Python objects crossing the boundary are strings.
//! `adapters/rust.py` drives it; `hanzo_conformance_rust.pyi` documents it for Python.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

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

/// Answer one worker-protocol request line without the GIL (see
/// [`hanzo_conformance::line::answer_line`]): a `run` line (`{"cmd": "run", "id",
/// "domain", "input"}`, UTF-8, maybe with `expect` or `expect_error`) or a tab-run line
/// (`<id> TAB <domain> TAB <expectation> TAB <input>`). The answer line (`=`,
/// `!"<message>"`, or the response `{"id", ...}`, each with a newline), or `None` when
/// the line is not a request [`batch::run_request`] accepts (not UTF-8, not JSON, a
/// lone surrogate in the input, no string id, a tab-run line not four fields ...): the
/// caller then takes its slow path, which reports it. The served child
/// (`adapters/serve.py`) calls this for each request, so no Python object is made per
/// case on either side of the call.
#[pyfunction]
fn run_line<'py>(py: Python<'py>, line: &[u8]) -> Option<Bound<'py, PyBytes>> {
    let answer = py.detach(|| hanzo_conformance::line::answer_line(line))?;
    Some(PyBytes::new(py, answer.as_bytes()))
}

/// The extension module.
#[pymodule]
fn hanzo_conformance_rust(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(implementation, m)?)?;
    m.add_function(wrap_pyfunction!(run_batch, m)?)?;
    m.add_function(wrap_pyfunction!(run_line, m)?)?;
    Ok(())
}
