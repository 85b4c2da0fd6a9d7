"""The theorem stage of ``prove``: known criteria next to the certificate search.

Only proved theorem verdicts (hypotheses checked on this network, not
``critical``) count: they give the verdict where no certificate did, and one
that contradicts a certificate or another proved theorem withdraws the verdict.
Cross-checks and unproved outcomes are reported (with what is missing) and
compared, never used as a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..certificates import theorem_certificate
from ..core.model import ForkJoinNetwork, Network
from ..exact.verdict import TheoremVerdict
from ..markov.chain import Chain, compile_chain
from .options import THEOREM_SHARE
from .result import Result
from .stage import Decision

__all__ = ["THEOREM_SHARE", "Weighing", "deciding_theorems", "weigh_theorems"]



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


@dataclass(frozen=True)
class Weighing:
    """What :func:`weigh_theorems` concludes; the pipeline applies it to the result.

    Attributes
    ----------
    theorems : tuple of TheoremVerdict
        The known criteria that applied (the result reports them).
    decision : Decision or None
        The theorem's verdict where no certificate decided, or ``undecided`` where proofs disagree; None: the
        result's verdict stands.
    first : tuple of str
        Reasons that go before every other (a disagreement).
    reasons : tuple of str
        Reasons that go after the others.
    disagree : bool
        True when proved theorems disagree with each other or with an exactly checked certificate.

    Examples
    --------
    >>> Weighing().disagree, Weighing().decision is None
    (False, True)
    """

    theorems: tuple[TheoremVerdict, ...] = ()
    decision: Decision | None = None
    first: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    disagree: bool = False


def weigh_theorems(
    res: Result, net: Network | ForkJoinNetwork, base: Chain | None = None, found: list[TheoremVerdict] | None = None
) -> Weighing:
    """Compare the known theorems with the result; where they disagree, no verdict is given.

    Parameters
    ----------
    res : Result
        The result so far (read, not changed: its verdict and semantics are compared).
    net : Network or ForkJoinNetwork
        The network.
    base : Chain, optional
        The chain on the stated means, when already compiled.
    found : list of TheoremVerdict, optional
        The criteria, when already evaluated (:func:`deciding_theorems`).

    Returns
    -------
    Weighing
        The theorems, the decision (if any) and the reasons, for the pipeline to apply.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> w = weigh_theorems(Result("J4"), load("models/symmetric-jsq-J4.json"))
    >>> w.disagree, w.decision.verdict, w.decision.method
    (False, 'stable', 'theorem: M/M-JSQ, heterogeneous servers: lam < sum mu')
    """
    from ..exact.theory import theorem_verdicts

    if isinstance(net, ForkJoinNetwork):
        from ..exact.forkjoin_capacity import fork_join

        found = [fork_join(net)]
    elif net.has_capacities:
        return Weighing()
    elif found is None:
        found = theorem_verdicts(base if base is not None else compile_chain(net), net)
    theorems = tuple(found)
    proved = [tv for tv in found if tv.decides]
    said = {tv.verdict for tv in proved}
    if len(said) > 1:
        return Weighing(
            theorems,
            Decision("undecided", res.semantics, "theorems disagree (a bug: please report)"),
            first=("DISAGREEMENT between known theorems: " + "; ".join(f"{t.theorem}: {t.verdict}" for t in proved),),
            disagree=True,
        )
    reasons: list[str] = []
    for tv in found:
        if tv.decides:
            continue
        if tv.verdict == "critical":
            reasons.append(
                f"the theorem '{tv.theorem}' puts this network on its stability boundary (critical: its inequality "
                f"holds with equality, {tv.numbers}); it gives no verdict there"
            )
        elif res.verdict in ("stable", "unstable") and tv.verdict != res.verdict:
            reasons.append(
                f"note: the cross-check '{tv.theorem}' says {tv.verdict} ({tv.numbers}), against the exactly checked "
                f"certificate; it is not a proof here ({'; '.join(tv.missing)}), so the certificate stands"
            )
        else:
            reasons.append(
                f"'{tv.theorem}' says {tv.verdict} ({tv.numbers}), not a proof here: {'; '.join(tv.missing)}"
            )
    if not said:
        return Weighing(theorems, reasons=tuple(reasons))
    tv = next(t for t in proved if t.verdict in said)
    if res.verdict in ("stable", "unstable"):
        if res.verdict != tv.verdict:
            disagreement = (
                f"DISAGREEMENT: the exactly checked certificate says {res.verdict} but the theorem '{tv.theorem}' "
                f"({tv.source}) says {tv.verdict} ({tv.numbers}); no verdict is given (a bug: please report)"
            )
            return Weighing(theorems, Decision("undecided", res.semantics, "certificate and theorem disagree"),
                            first=(disagreement,), reasons=tuple(reasons), disagree=True)
        reasons.append(f"agrees with the theorem '{tv.theorem}' ({tv.numbers}; {tv.source})")
        return Weighing(theorems, reasons=tuple(reasons))
    assert tv.verdict != "critical"  # a proved verdict (decides)
    try:
        certificate = theorem_certificate(net, tv)
    except ValueError as exc:  # the certificate builder re-runs the criterion; it should agree
        certificate = None
        reasons.append(f"no theorem certificate could be written: {exc}")
    hyp = "; ".join(tv.hypotheses) if tv.hypotheses else "none beyond the model"
    reasons.append(
        f"the hypotheses of '{tv.theorem}' hold (checked exactly: {hyp}) and it says {tv.verdict}: {tv.numbers} "
        f"({tv.source})"
    )
    return Weighing(theorems, Decision(tv.verdict, tv.semantics, f"theorem: {tv.theorem}", certificate), reasons=tuple(reasons))
