"""``hanzo-conformance generate`` and ``promote``: the differential and property search.

``search`` runs a domain's strategies on every platform and judges each answer against
the reference's (``Search``); ``backend`` is the one module touching Hypothesis'
internals (the search's own provider); ``known`` lets a search look past the causes a
ledger records; ``candidates`` writes findings to ``vectors/candidates/`` and promotes a
reviewed one; ``cli`` is the command.
"""
