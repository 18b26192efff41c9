"""Where the project's data is: ``schemas/``, ``vectors/``, ``docs/domains/``, ``impl_js/``.

In the repository they stay in their top-level folders. The wheel maps each into
this package as ``runners/_data/<name>`` (package data, pyproject.toml), found
with importlib.resources; a checkout (an editable install, the tests) has no
``_data`` and reads the top-level folders themselves.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent

# Top-level folder -> its name under runners/_data in the wheel.
BUNDLED = {
    "schemas": "schemas",
    "vectors": "vectors",
    "docs/domains": "domains",
    "impl_js": "impl_js",
}


def project_dir(name: str) -> Path:
    """The folder ``name`` (a key of BUNDLED): bundled in the wheel, else in the checkout."""
    bundled = resources.files(__package__ or "runners") / "_data" / BUNDLED[name]
    if bundled.is_dir():
        # A wheel installs as plain files, so the Traversable is a real directory.
        return Path(str(bundled))
    return CHECKOUT / name
