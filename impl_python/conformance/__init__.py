"""The reference platform's JSON layer: one module per domain, ``run(case_input) -> output``.

A domain is implemented when ``impl_python/conformance/<domain_snake>.py`` exists
(``adapters/python.py`` finds the modules by name).
"""
