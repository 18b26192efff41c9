"""Properties of the policy a config builds (docs/domains/config-merge.md CFG-22)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from impl_python.config import HanzoConfig, PermissionMode, permission_rules, policy_from_config
from impl_python.permissions import glob_match

patterns = st.text(alphabet=st.sampled_from("ab*?0\uff41\U0001f600"), min_size=1, max_size=4)
modes = st.sampled_from(["allow", "deny", "prompt"])
names = st.text(alphabet=st.sampled_from("ab0\uff41\U0001f600"), max_size=4)


@settings(max_examples=300, deadline=None)
@given(perms=st.dictionaries(patterns, modes, max_size=8), data=st.data(), name=names)
def test_rules_do_not_depend_on_key_order_and_deny_wins(
    perms: dict[str, PermissionMode], data: st.DataObject, name: str
) -> None:
    """CFG-22: the same map in any key order gives the same rules; a matching deny always wins."""
    items = data.draw(st.permutations(list(perms.items())))
    reordered = HanzoConfig(permissions=dict(items))
    original = HanzoConfig(permissions=perms)
    assert permission_rules(reordered) == permission_rules(original)
    mode = policy_from_config(original).evaluate(name).value
    matching = {m for p, m in perms.items() if glob_match(p, name)}
    if "deny" in matching:
        assert mode == "deny"
    elif "prompt" in matching:
        assert mode == "prompt"
    elif matching:
        assert mode == "allow"
    else:
        assert mode == "prompt"
