"""The theorem stage of ``prove``: known criteria next to the certificate search.

Only proved theorem verdicts (hypotheses checked on this network, not
``critical``) count: they give the verdict where no certificate did, and one
that contradicts a certificate or another proved theorem withdraws the verdict.
Cross-checks and unproved outcomes are reported (with what is missing) and
compared, never used as a verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..certificates import theorem_certificate
from ..core.model import ForkJoinNetwork, Network
from ..markov.chain import Chain, compile_chain
from .result import Result

if TYPE_CHECKING:
    from ..exact.verdict import TheoremVerdict

__all__ = ["THEOREM_SHARE", "deciding_theorems", "weigh_theorems"]

#: When a theorem whose hypotheses hold already decides the network, the certificate stages of the default
#: pipeline get this share of the time limit (the rest would only be spent before giving the theorem's verdict).
THEOREM_SHARE = 0.25


def deciding_theorems(net: Network, base: Chain) -> list[TheoremVerdict]:
    """The known criteria on ``net`` (polynomial time; exact), for the pipeline to weigh before and after the stages.

    Parameters
    ----------
    net : Network
        The JSQ network.
    base : Chain
        Its chain on the stated means.

    Returns
    -------
    list of TheoremVerdict
        Every criterion whose structural hypotheses hold (empty for networks with capacities).

    Examples
    --------
    >>> from certify.io.loader import load
    >>> net = load("models/symmetric-jsq-J4.json")
    >>> [(tv.verdict, tv.decides) for tv in deciding_theorems(net, compile_chain(net))]
    [('stable', True)]
    """
    from ..exact.theory import theorem_verdicts

    return [] if net.has_capacities else theorem_verdicts(base, net)


def weigh_theorems(
    res: Result, net: Network | ForkJoinNetwork, base: Chain | None = None, found: list[TheoremVerdict] | None = None
) -> bool:
    """Compare the known theorems with the result; True when they disagree (then no verdict is given).

    Parameters
    ----------
    res : Result
        The result so far; its verdict, method, certificate and reasons are updated.
    net : Network or ForkJoinNetwork
        The network.
    base : Chain, optional
        The chain on the stated means, when already compiled.
    found : list of TheoremVerdict, optional
        The criteria, when already evaluated (:func:`deciding_theorems`).

    Returns
    -------
    bool
        True when proved theorems disagree with each other or with an exactly checked certificate.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> res = Result("J4")
    >>> weigh_theorems(res, load("models/symmetric-jsq-J4.json")), res.verdict
    (False, 'stable')
    """
    from ..exact.theory import theorem_verdicts

    if isinstance(net, ForkJoinNetwork):
        from ..forkjoin.capacity import fork_join

        found = [fork_join(net)]
    elif net.has_capacities:
        return False
    elif found is None:
        found = theorem_verdicts(base if base is not None else compile_chain(net), net)
    res.theorems = list(found)
    proved = [tv for tv in found if tv.decides]
    said = {tv.verdict for tv in proved}
    if len(said) > 1:
        res.reasons.insert(0, "DISAGREEMENT between known theorems: " + "; ".join(f"{t.theorem}: {t.verdict}" for t in proved))
        res.verdict, res.method, res.certificate = "undecided", "theorems disagree (a bug: please report)", None
        return True
    for tv in found:
        if tv.decides:
            continue
        if tv.verdict == "critical":
            res.reasons.append(
                f"the theorem '{tv.theorem}' puts this network on its stability boundary (critical: its inequality "
                f"holds with equality, {tv.numbers}); it gives no verdict there"
            )
        elif res.verdict in ("stable", "unstable") and tv.verdict != res.verdict:
            res.reasons.append(
                f"note: the cross-check '{tv.theorem}' says {tv.verdict} ({tv.numbers}), against the exactly checked "
                f"certificate; it is not a proof here ({'; '.join(tv.missing)}), so the certificate stands"
            )
        else:
            res.reasons.append(
                f"'{tv.theorem}' says {tv.verdict} ({tv.numbers}), not a proof here: {'; '.join(tv.missing)}"
            )
    if not said:
        return False
    tv = next(t for t in proved if t.verdict in said)
    if res.verdict in ("stable", "unstable"):
        if res.verdict != tv.verdict:
            res.reasons.insert(
                0,
                f"DISAGREEMENT: the exactly checked certificate says {res.verdict} but the theorem '{tv.theorem}' "
                f"({tv.source}) says {tv.verdict} ({tv.numbers}); no verdict is given (a bug: please report)",
            )
            res.verdict, res.method, res.certificate = "undecided", "certificate and theorem disagree", None
            return True
        res.reasons.append(f"agrees with the theorem '{tv.theorem}' ({tv.numbers}; {tv.source})")
        return False
    assert tv.verdict != "critical"  # a proved verdict (decides)
    res.verdict, res.semantics = tv.verdict, tv.semantics
    res.method = f"theorem: {tv.theorem}"
    try:
        res.certificate = theorem_certificate(net, tv)
    except ValueError as exc:  # the certificate builder re-runs the criterion; it should agree
        res.certificate = None
        res.reasons.append(f"no theorem certificate could be written: {exc}")
    hyp = "; ".join(tv.hypotheses) if tv.hypotheses else "none beyond the model"
    res.reasons.append(
        f"the hypotheses of '{tv.theorem}' hold (checked exactly: {hyp}) and it says {tv.verdict}: {tv.numbers} "
        f"({tv.source})"
    )
    return False
