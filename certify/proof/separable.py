"""The separable tries of the Markovian schedule: a Foster and a growth certificate checked cluster by cluster.

Where two or more groups of stations share choice sets (G tie-breaking gadgets
feeding one sink), the table template's regions are the product of every
group's levels and it is skipped; the separable certificates
(``docs/math/separable.md``) give each group its own table and check the drift
cluster by cluster, so their size grows with the number of groups, not as a
power of it.  One :class:`SeparableTry` tries the Foster side, then the growth
side, at one clip level.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..certificates.kinds.separable import separable_certificate, separable_growth_certificate
from ..core.clock import earliest
from ..core.render import plural
from ..exact.clusters import cluster_levels
from ..exact.separable import (
    MAX_SEPARABLE_REGIONS,
    Structure,
    check_separable,
    clusters,
    families,
    region_bound,
    structure_problem,
    sub_chain,
)
from ..exact.separable_growth import check_separable_growth, growth_structure
from ..markov.chain import Chain
from ..markov.drift import clip_text
from ..markov.phases import MAX_PHASE_VECTORS
from ..markov.regions import iter_regions
from ..search.separable import (
    default_structure,
    raised_structure,
    search_separable,
    search_separable_growth,
    shares_choice_sets,
)
from .context import ProofContext, primitives
from .stage import Decision, StageOutcome, decide

__all__ = ["SEPARABLE_K", "TRY_REGIONS", "PRODUCT_LIMIT", "SeparableTry", "separable_tries", "run_separable", "product_estimate",
           "beyond_product", "beyond_phases"]

#: The separable tries, in order: (clip level, merged groups, raised near phase-type service); a merged try only
#: where it differs, a raised one only with phase-type service (:func:`~certify.search.separable.raised_structure`).
#: Where the groups merge (cascades) the merged K = 2 try comes first: it decided both sides of every depth-2 and
#: depth-3 cascade measured (exponential, Erlang-2, H2, Coxian), where the default groups at K = 6 never did and
#: cost 3-18 s before it (``docs/benchmarks.md``); elsewhere the tries are K = 6, then K = 12.
SEPARABLE_K = ((2, True, False), (2, True, True), (6, False, False), (4, True, False), (12, False, False))

#: The most cluster regions (all clusters together) a separable try of ``prove`` lists, where their bound is above
#: :data:`~certify.exact.separable.MAX_SEPARABLE_REGIONS` (the merged group of a depth-3 cascade at K = 2 has about
#: 10,000 against a bound of 7,077,890; at K = 4 a bound of 80,621,570).
TRY_REGIONS = 100_000

#: Beyond this product of the clusters' region counts the whole network's regions and fluid faces are not listed
#: where the separable tries apply: 5 gadgets into a sink (15,552) spent 60 s listing them, 6 (93,312) 120 s and 3 GB.
PRODUCT_LIMIT = 5_000


@dataclass(frozen=True)
class SeparableTry:
    """One separable try of the schedule: both sides at clip level K, with the default or the merged groups.

    Attributes
    ----------
    K : int
        The clip level of every group's table.
    merged : bool
        Groups merged along feedback into choice sets (:func:`~certify.search.separable.default_structure`).
    raised : bool
        The merged groups with K + 1 near phase-type service and only downstream multipliers
        (:func:`~certify.search.separable.raised_structure`); the Foster side only (it is there for the stable side
        of phase-type cascades, whose unstable side the merged K = 2 growth certificate, tried before it, decides:
        a raised growth LP, 9 s on a depth-3 cascade, never decided a case measured).

    Examples
    --------
    >>> SeparableTry(6).stage, SeparableTry(4, True).stage
    ('separable certificates (K=6)', 'separable certificates (K=4, merged groups)')
    >>> SeparableTry(2, True, True).stage
    'separable certificates (K=2, merged groups, 3 near phase-type service)'
    """

    K: int
    merged: bool = False
    raised: bool = False

    @property
    def stage(self) -> str:
        """Its name, as the attempts and the run's summary list it."""
        return f"separable certificates (K={self.K}{', merged groups' if self.merged else ''}{self.raised_note})"

    @property
    def raised_note(self) -> str:
        """What a verdict's sentence adds after the clip level of a raised try (empty for the others)."""
        return f", {self.K + 1} near phase-type service" if self.raised else ""

    def structure(self, chain: Chain) -> Structure:
        """Its function's shape on ``chain``.

        Parameters
        ----------
        chain : Chain
            The Markovian chain.

        Returns
        -------
        Structure
            :func:`~certify.search.separable.default_structure` at K, merged or not, or
            :func:`~certify.search.separable.raised_structure`.
        """
        return raised_structure(chain, self.K) if self.raised else default_structure(chain, self.K, self.merged)


def separable_tries(chain: Chain, templates: list[str]) -> list[SeparableTry]:
    """The separable tries for this chain: with the table template, exponential streams and two or more groups.

    Parameters
    ----------
    chain : Chain
        The Markovian chain.
    templates : list of str
        The Foster templates asked for (the separable function generalises ``table``).

    Returns
    -------
    list of SeparableTry
        One per clip level of :data:`SEPARABLE_K` whose structure can be checked; none otherwise.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> separable_tries(compile_chain(load("models/symmetric-jsq-J4.json")), ["table"])
    []
    """
    return list(_tries(chain)) if "table" in templates else []


@lru_cache(maxsize=256)
def _tries(chain: Chain) -> tuple[SeparableTry, ...]:
    """The separable tries of a chain, computed once (the schedule, the fluid stage and the size guard all ask)."""
    if not shares_choice_sets(chain):
        return ()
    base = default_structure(chain, 1)
    rs = raised_structure(chain, 1)  # its groups are the merged ones
    merges = rs.groups != base.groups
    # a raised try needs phase-type service and a station downstream of a group (its only multipliers)
    raisable = any(base.phases) and any(m for F, m in zip(rs.groups, rs.multipliers) if len(F) > 1)
    tries = [SeparableTry(K, merged, raised) for K, merged, raised in SEPARABLE_K
             if (merges or not merged) and (raisable or not raised)]
    built = [(t, t.structure(chain)) for t in tries]  # each try's structure once
    return tuple(t for t, st in built if structure_problem(chain, st) is None and _listable(chain, st))


def _listable(chain: Chain, st: Structure) -> bool:
    """Whether the clusters' regions are few enough to search: their bound is, or a count to :data:`TRY_REGIONS` says so.

    The bound (:func:`~certify.exact.separable.region_bound`) can be far above the count (most argmin patterns
    are empty), so a shape over :data:`~certify.exact.separable.MAX_SEPARABLE_REGIONS` is counted, region by region,
    and given up past :data:`TRY_REGIONS`.
    """
    if region_bound(chain, st) <= MAX_SEPARABLE_REGIONS:
        return True
    fams = families(chain)
    count = 0
    for c in clusters(chain, st):
        sub, loc = sub_chain(chain, c, fams)
        for _ in iter_regions(sub, {loc[a]: k for a, k in cluster_levels(st, c).items()}):
            count += 1
            if count > TRY_REGIONS:
                return False
    return True


@lru_cache(maxsize=256)
def product_estimate(chain: Chain) -> int | None:
    """The product of the clusters' region counts (no clip levels; times the phases of busy phase-type stations).

    About how many regions (x phases) the whole network's listing would have.

    Computed only where the separable tries apply (two or more groups, exponential streams); each cluster's regions
    are few, so this costs little even when the product is far beyond enumeration.

    Parameters
    ----------
    chain : Chain
        The Markovian chain.

    Returns
    -------
    int or None
        The product, or None where no separable try applies.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> product_estimate(compile_chain(load("models/symmetric-jsq-J4.json"))) is None
    True
    """
    if not separable_tries(chain, ["table"]):
        return None
    st = default_structure(chain, 1)
    fams = families(chain)
    total = 1
    for c in clusters(chain, st):
        sub, loc = sub_chain(chain, c, fams)
        phased = [a for a in c.stations if st.phase_count(a)]  # each busy one multiplies by its phases
        count = 0
        for R in iter_regions(sub, {loc[a]: 1 for a in phased}):
            n = 1
            for a in phased:
                n *= 1 if loc[a] in R.empty else st.phase_count(a)
            count += n
        total *= count
    return total


def beyond_product(chain: Chain, templates: list[str]) -> str | None:
    """Why the whole network's regions (and fluid faces) are not listed: their estimated number, or None.

    Listing them is worth it only while they are few: past :data:`PRODUCT_LIMIT` the global searches
    spend the time limit (and gigabytes) that the separable tries need only seconds of.

    Parameters
    ----------
    chain : Chain
        The Markovian chain.
    templates : list of str
        The Foster templates asked for: without ``table`` no separable try runs, and nothing is skipped.

    Returns
    -------
    str or None
        The reason, when separable tries will run and :func:`product_estimate` exceeds :data:`PRODUCT_LIMIT`.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> beyond_product(compile_chain(load("models/symmetric-jsq-J4.json")), ["table"]) is None
    True
    """
    if not separable_tries(chain, templates):
        return None
    n = product_estimate(chain)
    if n is None or n <= PRODUCT_LIMIT:
        return None
    return (f"skipped: the network's regions number about {n} (the product of its clusters' regions), beyond "
            f"{PRODUCT_LIMIT}; the separable certificates check cluster by cluster instead")


def beyond_phases(chain: Chain) -> str | None:
    """Why no whole-network search runs on this chain: its phase space is past what they list, or None.

    Such a chain exists only where separable tries may run (:func:`certify.proof.context.separable_only`); they
    see each cluster's own phases, never the whole space.

    Parameters
    ----------
    chain : Chain
        The Markovian chain.

    Returns
    -------
    str or None
        The reason, when :attr:`~certify.markov.phases.PhaseChain.phase_vectors` exceeds
        :data:`~certify.markov.phases.MAX_PHASE_VECTORS`.

    Examples
    --------
    >>> from certify.io.loader import load
    >>> from certify.markov.chain import compile_chain
    >>> beyond_phases(compile_chain(load("models/symmetric-jsq-J4.json"))) is None
    True
    """
    if chain.phase_vectors <= MAX_PHASE_VECTORS:
        return None
    return (f"skipped: the phase-type expansion has {chain.phase_vectors} phase vectors, beyond {MAX_PHASE_VECTORS}; "
            "the separable certificates check cluster by cluster, each with its own stations' phases")


def run_separable(ctx: ProofContext, item: SeparableTry, deadline: float | None = None) -> StageOutcome | None:
    """Search, round and check both separable certificates at the try's clip level; the decision, or None.

    Parameters
    ----------
    ctx : ProofContext
        The run (its exponential chain).
    item : SeparableTry
        The try.
    deadline : float, optional
        A ``time.perf_counter()`` value before the run's deadline (a stage's share of the time): the searches and
        the checks stop at the earlier of the two.

    Returns
    -------
    StageOutcome or None
        A decision when a certificate passed the exact check.

    Raises
    ------
    TimeLimitReached
        When the deadline passes during an enumeration.

    Examples
    --------
    Two stations sharing a stream (uniform ties), each feeding a sink of its own, twice over:

    >>> import time
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Feedback, Network, Station, Stream
    >>> from certify.proof.context import ProofContext, RunState
    >>> from certify.proof.result import Result
    >>> st = [Station("s", F(9, 5))] + [Station(f"{x}{g}", F(1) if x == "a" else F(3, 2)) for g in (0, 1) for x in "ab"]
    >>> streams = [Stream(F(2, 5), choice=("s",))] + [Stream(F(8, 5), choice=(f"a{g}", f"b{g}")) for g in (0, 1)]
    >>> net = Network("g2", tuple(st), tuple(streams), tuple(Feedback(f"a{g}", ("s",), F(1)) for g in (0, 1)))
    >>> ctx = ProofContext(net, Result("g2"), RunState(time.perf_counter() + 60), None, True, ["table"])
    >>> out = run_separable(ctx, SeparableTry(6))
    >>> out.decision.verdict, out.decision.certificate["kind"]
    ('stable', 'separable-foster')
    """
    chain, run = ctx.chain, ctx.run
    assert chain is not None
    if run.expired():
        run.skipped.append(item.stage)
        return None
    run.ran.append(item.stage)
    end = earliest(deadline, run.deadline)
    st = item.structure(chain)
    gst = growth_structure(st.groups, st.K, st.phases)
    with ctx.timer(item.stage) as t:
        t.size = f"{plural(len(st.groups), 'group')}, {plural(len(clusters(chain, st)), 'cluster')}"
        grow = None if item.raised else search_separable_growth(chain, gst, ctx.solver, end)  # raised: Foster only
        if grow is not None and grow.theta is not None and grow.delta is not None and grow.delta > 0:
            gchk = check_separable_growth(chain, gst, grow.theta, deadline=end)
            if gchk.ok:
                t.outcome = f"growth: delta {float(gchk.facts.delta):.3g} (exact)"
                return decide(
                    Decision("unstable", "markovian", "separable growth certificate",
                             separable_growth_certificate(ctx.net, chain, gst, grow.theta, gchk)),
                    f"f = w'x + per-group tables ({clip_text(item.K)}) grows by at least "
                    f"{float(gchk.facts.delta):.3g} per unit time at every state (checked exactly cluster by cluster; "
                    f"Fayolle-Malyshev-Menshikov): the chain is transient, for {primitives(chain)} and the given "
                    f"tie-breaking",
                )
        cand = search_separable(chain, st, ctx.solver, end)
        if cand.theta is not None and cand.budgets is not None and cand.delta is not None and cand.delta > 0:
            chk = check_separable(chain, st, cand.theta, cand.budgets, deadline=end)
            if chk.ok:
                t.outcome = f"Foster: delta {float(chk.facts.delta):.3g} (exact)"
                return decide(
                    Decision("stable", "markovian", "separable Foster-Lyapunov certificate",
                             separable_certificate(ctx.net, chain, st, cand.theta, cand.budgets, chk)),
                    f"V = x'Px + per-group tables ({plural(len(st.groups), 'group')} clipped at K = {item.K}"
                    f"{item.raised_note}): AV(x) <= "
                    f"{float(chk.facts.drift_bound):.4g} - {float(chk.facts.delta):.3g} |x|_1 at every state, checked "
                    f"exactly cluster by cluster ({chk.facts.clusters} clusters, {chk.facts.regions} regions; Foster's "
                    f"criterion): positive recurrent for {primitives(chain)} and the given tie-breaking",
                )
        def said(lp_delta: float | None, status: str) -> str:
            return f"best margin {lp_delta:.3g}" if lp_delta is not None else f"LP {status} (not a verdict)"

        growth = "not tried" if grow is None else said(grow.lp_delta, grow.status)
        t.outcome = f"no certificate: Foster {said(cand.lp_delta, cand.status)}, growth {growth}"
    return None
