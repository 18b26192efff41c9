//! `hanzo_conformance_rust`: the Rust platform of the conformance harness, for Python.
//!
//! A thin binding over [`hanzo_conformance::batch`]: every function takes and returns
//! JSON text, so the only Python objects crossing the boundary are strings.
//! `adapters/rust.py` drives it; `hanzo_conformance_rust.pyi` documents it for Python.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

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

/// The extension module.
#[pymodule]
fn hanzo_conformance_rust(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(implementation, m)?)?;
    m.add_function(wrap_pyfunction!(run_batch, m)?)?;
    Ok(())
}
