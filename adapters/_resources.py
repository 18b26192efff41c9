"""Where the project's data is: ``schemas/``, ``vectors/``, ``docs/domains/``, ``impl_js/``,
``fixtures/hooks/``.

In the repository they stay in their top-level folders. The wheel maps each into
this package as ``adapters/_data/<name>`` (package data, pyproject.toml), found
with importlib.resources; a checkout (an editable install, the tests) has no
``_data`` and reads the top-level folders themselves.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent

# Top-level folder -> its name under adapters/_data in the wheel.
BUNDLED = {
    "schemas": "schemas",
    "vectors": "vectors",
    "docs/domains": "domains",
    "impl_js": "impl_js",
    "fixtures/hooks": "fixtures/hooks",
}

HOOK_FIXTURES_ENV = "HANZO_HOOK_FIXTURES"


def project_dir(name: str) -> Path:
    """The folder ``name`` (a key of BUNDLED): bundled in the wheel, else in the checkout."""
    bundled = resources.files(__package__ or "adapters") / "_data" / BUNDLED[name]
    if bundled.is_dir():
        # A wheel installs as plain files, so the Traversable is a real directory.
        return Path(str(bundled))
    return CHECKOUT / name


def export_hook_fixtures() -> None:
    """Point every platform's hooks and tool-call-pipeline layers at the hook programs.

    The layers look for ``fixtures/hooks`` beside their own checkout, which an
    installed wheel does not have; they all honour ``HANZO_HOOK_FIXTURES`` first. It is
    set in this process, so in-process platforms and every child started after it
    (workers, served platforms) see it; a value the user set is kept.
    """
    os.environ.setdefault(HOOK_FIXTURES_ENV, str(project_dir("fixtures/hooks")))
