"""The readable proof of a lag-table certificate (kind ``fork-join-foster``): V = N + h(min(N - Q, K)).

Foster's criterion, one drift inequality per region of lag levels; every number
is the checker's (:mod:`certify.exact.forkjoin`) or re-derived with the exact
functions it uses (:func:`~certify.exact.forkjoin_lags.region_drift`,
:func:`~certify.exact.forkjoin_lags.canonical`, :func:`~certify.exact.forkjoin_lags.transitions`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from ..core.latex import frac_tex, station_tex, vector_tex
from ..core.model import ForkJoinNetwork
from ..exact.forkjoin import LagTableFacts
from ..exact.forkjoin_capacity import mu_star, server_rates
from ..exact.forkjoin_lags import State, canonical, count_patterns, lag_regions, region_drift, transitions
from .common import Context, claim_section, hypotheses_section, recheck_section
from .document import Block, Display, Math, Proof, Section, Table, para, summarised
from .forkjoin import FOSTER, fj_net, fj_network, fj_title, foster_statement, server_ids

__all__ = ["explain_lag_table"]



def _levels(reg: Sequence[int], K: int) -> str:
    return "(" + ", ".join(f"\\ge {K + 1}" if x > K else str(x) for x in reg) + ")"


def _levels_text(reg: Sequence[int], K: int) -> str:
    return "(" + ",".join(f">={K + 1}" if x > K else str(x) for x in reg) + ")"


def _h(cell: State) -> str:
    return "h" + vector_tex(cell)


def _region_rows(
    net: ForkJoinNetwork, K: int, table: Mapping[State, Fraction], classes: Sequence[Sequence[int]], delta: Fraction
) -> list[tuple[State, Fraction, Fraction, dict[State, Fraction], Fraction]]:
    """(region, departure rate, constant, {canonical target: rate}, AV) per region checked, tightest first."""
    d, lam = server_rates(net), Fraction(net.rate)
    out = []
    for reg in lag_regions(net.n, net.k, K, classes):
        cell, const, moves = region_drift(d, lam, net.k, K, reg)
        c0 = canonical(cell, classes)
        merged: dict[State, Fraction] = {}
        for c2, r in moves.items():
            key = canonical(c2, classes)
            merged[key] = merged.get(key, Fraction(0)) + r
        av = const + sum((r * (table[c2] - table[c0]) for c2, r in merged.items()), Fraction(0))
        out.append((reg, lam - const, const, merged, av))
    out.sort(key=lambda row: (-row[4], row[0]))
    assert out and -out[0][4] == delta, "the regions' drifts must reproduce the checker's delta"
    return out


def explain_lag_table(ctx: Context) -> Proof:
    """The proof of a ``fork-join-foster`` certificate: V = N + h(min(N - Q, K)) and Foster's criterion.

    Parameters
    ----------
    ctx : Context
        A verified fork-join Foster certificate and its network.

    Returns
    -------
    Proof
        Claim, network, Foster's criterion with its hypotheses checked here, the
        table h, the regions of lag levels with AV <= -delta and its slack
        (tightest first), the exceptional set {N <= K}, and how to re-check (a
        worked state of the tightest region).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import forkjoin_foster_certificate
    >>> from certify.explain import explain
    >>> from certify.exact.forkjoin import check_forkjoin_foster
    >>> from certify.core.model import ForkJoinNetwork
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(3, 10), (("1", F(1, 3)), ("2", F(1, 3)), ("3", F(1, 3))))
    >>> h = {(0, 0, 0): F(0), (1, 0, 0): F(-1, 2)}
    >>> proof = explain(net, forkjoin_foster_certificate(net, 1, h, check_forkjoin_foster(net, 1, h)))
    >>> proof.title
    'n3k2 is stable: a Lyapunov function of the jobs and the lags'
    >>> "\\\\delta = \\\\frac{1}{30}" in proof.render("markdown")
    True
    """
    net = fj_net(ctx)
    f = ctx.facts.checked
    assert isinstance(f, LagTableFacts)
    table: Mapping[State, Fraction]  # the reading of read_lag_table: the lag table h
    _, K, table, classes = ctx.reading.args
    classes = [tuple(c) for c in classes]
    assert K == f.K and classes == [tuple(c) for c in f.classes]
    ids, d = server_ids(net), server_rates(net)
    lam, mus, delta = Fraction(net.rate), mu_star(net), f.delta
    what = "a Lyapunov function of the jobs and the lags"
    rows = _region_rows(net, K, table, classes, delta)
    assert len(rows) == f.regions and len(table) == f.cells
    all_regions = count_patterns(net.n, net.k, K + 1)
    n_exc = 1 + sum(count_patterns(net.n, net.k, top) for top in range(1, K + 1))  # N = 0: the empty state
    hmin, hmax = min(table.values()), max(table.values())
    cls_text = "; ".join(
        "{" + ", ".join(ids[i] for i in c) + "} at rate " + str(d[c[0]]) for c in classes
    )

    checks = [
        para(
            "The chain: its total jump rate is at most ", Math(f"\\lambda + \\mu^* = {frac_tex(lam + mus)}"),
            "; with no arrivals every completion lowers ", Math("\\sum_i Q_i"), ", so the empty state is reachable "
            "from every state (the state x0 of the theorem).",
        ),
        para(
            "V is bounded below: h takes values from ", Math(frac_tex(hmin)), " to ", Math(frac_tex(hmax)),
            ", so ", Math(f"V \\ge N {'-' if hmin < 0 else '+'} {frac_tex(abs(hmin))} \\ge {frac_tex(hmin)}"), ".",
        ),
        para(
            f"AV is one number per region when N > K = {K}: for N >= K + 1 every server with ", Math("L_i \\le K"),
            " has ", Math("Q_i = N - L_i \\ge 1"), " and is busy, and a server with ", Math("L_i \\ge K + 1"),
            " changes neither N nor the clipped lags when it completes a task; so AV depends only on the region "
            f"(each lag at level 0..{K} or >= {K + 1}, at most k - 1 = {net.k - 1} of them positive).",
        ),
        para(
            f"Symmetry: servers of equal rate are interchangeable ({cls_text}); the chain commutes with permuting "
            "them and h is given on orbit representatives (levels in decreasing order within each class), so AV is the "
            f"same on a region and on its representative: {f.regions} regions checked, one per orbit "
            f"({all_regions} regions in all).",
        ),
        para(
            "The drift: on each of these regions ", Math(f"AV \\le -\\delta = -{frac_tex(delta)}"), " (the table "
            "below, tightest first), so ", Math("AV \\le -\\delta"), f" at every state with N > {K}; the exceptional set ",
            Math(f"\\{{N \\le {K}\\}}"), f" is finite ({n_exc} states) and AV is finite on it.",
        ),
    ]
    Lc = ", ".join(f"\\min(N - {station_tex(s, 'Q')}, K)" for s in ids)
    h_rows = tuple((Math(vector_tex(c)), Math(frac_tex(v))) for c, v in sorted(table.items()))
    h_table = Table(("cell c", "h(c)"), h_rows, f"The table h on the {len(table)} cells (orbit representatives)")
    h_blocks, app_h = summarised(h_table, ctx.max_rows, "The table h")
    v_sec = Section(
        "The Lyapunov function",
        (
            Display((f"V(q) = N + h\\left({Lc}\\right), \\qquad N = \\max_i Q_i, \\quad K = {K},",)),
            para(
                "where h of a clipped lag vector is its value at the orbit representative (the levels sorted in "
                "decreasing order within each class of equal-rate servers):",
            ),
            *h_blocks,
        ),
    )
    r_rows = []
    for reg, dep, _const, merged, av in rows:
        c0 = canonical(tuple(min(x, K) for x in reg), classes)
        terms = [f"{frac_tex(lam)}"] + ([f"- {frac_tex(dep)}"] if dep else [])
        terms += [f"+ {frac_tex(r)}\\,[{_h(c2)} - {_h(c0)}]" for c2, r in sorted(merged.items())]
        r_rows.append((Math(_levels(reg, K)), Math(frac_tex(dep)), Math(" ".join(terms)), Math(frac_tex(av)),
                       Math(frac_tex(-delta - av))))
    r_table = Table(
        ("lag levels L", "jobs leave at rate", "AV = lambda - (rate) + jumps of h", "AV", "slack (-delta - AV)"),
        tuple(r_rows), "The drift on each region of lag levels, N > K (tightest first)",
    )
    r_blocks, app_r = summarised(r_table, ctx.max_rows, "The drift on every region")
    regions = Section(
        "The drift on the regions",
        (
            para(
                "On a region, jobs leave at the sum of the rates of the lag-0 servers when exactly k - 1 lags are "
                "positive (their completion is the k-th task of the oldest job; every positive lag then drops by one), "
                "and at rate 0 otherwise; N drifts by ", Math("\\lambda"), " minus that rate. A completion at a server "
                "with ", Math("0 < L_i < K"), " raises its lag by one, and one at a lag-0 server when fewer than k - 1 lags "
                "are positive makes its lag 1. So",
            ),
            Display(("AV = \\lambda - (\\text{departure rate}) + \\sum_{c'} \\text{rate}(c \\to c')\\,[h(c') - h(c)] "
                     f"\\le -\\delta, \\qquad \\delta = {frac_tex(delta)},",)),
            *r_blocks,
        ),
    )
    exc = Section(
        "The exceptional set",
        (para("AV <= -delta at every state outside ", Math(f"\\{{q : \\max_i Q_i \\le {K}\\}}"),
              f", the {n_exc} states with at most {K} jobs present."),),
    )
    reg0 = rows[0][0]
    N0 = K + 1
    state = tuple(N0 - min(x, K + 1) for x in reg0)

    def V(q: Sequence[int]) -> Fraction:
        top = max(q)
        return top + table[canonical(tuple(min(top - x, K) for x in q), classes)]

    moves = sorted(transitions(net, state).items())
    av = sum((r * (V(t) - V(state)) for t, r in moves), Fraction(0))
    assert av == rows[0][4]
    ex_rows = tuple((Math(vector_tex(t)), Math(frac_tex(r)), Math(frac_tex(V(t) - V(state)))) for t, r in moves)
    independent: list[Block] = [
        para(
            "Independently, at any state q with N > K: list its jumps by the fork/cancel rules of the network section "
            "(the function transitions of certify.exact.forkjoin_lags lists them), evaluate ",
            Math("V = N + h(\\min(N - Q, K))"), " at each target (h at the orbit representative), and check that the sum "
            "of rate times (V(target) - V(q)) is at most ", Math(f"-{frac_tex(delta)}"), ". For example at ",
            Math(f"q = {vector_tex(state)}"), f" (N = {N0}, in the tightest region {_levels_text(reg0, K)}):",
        ),
        Table(("target", "rate", "V(target) - V(q)"), ex_rows, f"The jumps out of {state}"),
        Display((f"AV(q) = {frac_tex(av)} \\le -{frac_tex(delta)} = -\\delta",)),
    ]
    sections = (
        claim_section(ctx, "stable", what),
        fj_network(net),
        hypotheses_section(*FOSTER, foster_statement(), checks),
        v_sec,
        regions,
        exc,
        recheck_section(ctx, independent),
    )
    return Proof(fj_title(net, "stable", what), sections, tuple(app_h + app_r))
