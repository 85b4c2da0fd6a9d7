"""Readable proofs of the fork-join certificate kinds: the capacity bound, the (k,k) quadratic (the lag table: forkjoin_lags).

* ``fork-join-capacity`` (:func:`explain_capacity`): flow balance, a set R of
  at most k-1 servers with d(R^c)/(k-``|R|``) below the job rate, so the number
  of jobs grows linearly.
* ``fork-join-independent`` (:func:`explain_independent`): k = n, every server
  an M/M/1 queue, Foster's criterion for V = sum_i Q_i^2.
* ``fork-join-foster`` (:func:`certify.explain.forkjoin_lags.explain_lag_table`):
  Foster's criterion for V = N + h(min(N - Q, K)), one drift inequality per
  region of lag levels.

The shared pieces (the network section, the title, Foster's statement) are used
by :mod:`certify.explain.forkjoin_lags` too.

Every number is the checker's (:mod:`certify.exact.forkjoin`) or re-derived
with the exact functions it uses (:func:`~certify.exact.forkjoin_lags.region_drift`,
:func:`~certify.exact.forkjoin_lags.canonical`, :func:`~certify.exact.forkjoin_lags.transitions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import ceil, comb

from ..core.latex import frac_tex, set_tex, station_tex, vector_tex
from ..core.model import ForkJoinNetwork
from ..exact.forkjoin import CapacityFacts, IndependentFacts
from ..exact.forkjoin_capacity import mu_star, server_rates
from ..exact.forkjoin_lags import transitions
from .common import Context, claim_section, hypotheses_section, network_section, recheck_section
from .document import Block, Display, Math, Proof, Section, Table, para, summarised

__all__ = ["explain_capacity", "explain_independent"]

FOSTER = ("Foster's criterion for continuous-time Markov chains",
           "Foster (1953); for continuous-time chains Meyn and Tweedie (1993), Stability of Markovian processes III")


# ----------------------------------------------------------------------------- shared pieces
def fj_net(ctx: Context) -> ForkJoinNetwork:
    assert isinstance(ctx.net, ForkJoinNetwork)
    return ctx.net


def server_ids(net: ForkJoinNetwork) -> list[str]:
    return [s for s, _ in net.servers]


def _sum_tex(values: Sequence[Fraction]) -> str:
    return " + ".join(frac_tex(v) for v in values) if values else "0"


def fj_network(net: ForkJoinNetwork) -> Section:
    """The network section, with the fork/cancel rules of the chain stated exactly."""
    base = network_section(net)
    rules = (
        para(
            f"The precise rules: each job forks one task to every one of the n = {net.n} servers (FCFS, server i "
            "exponential at rate ", Math("d_i"), f"); it leaves when k = {net.k} of its tasks are done, and its "
            f"n - k = {net.n - net.k} other tasks are cancelled. ", Math("Q_i"), " is the number of tasks at server i, ",
            Math("N = \\max_i Q_i"), " the number of jobs present, and ", Math("L_i = N - Q_i"), " the lag of server i "
            "(the oldest jobs whose task it has finished); at most k - 1 lags are positive.",
        ),
        para(
            "The queue lengths form a continuous-time Markov chain: an arrival (rate ", Math("\\lambda"), ") adds one "
            "task everywhere; a completion at a busy server i (rate ", Math("d_i"), ") lowers ", Math("Q_i"),
            " by one, unless ", Math("L_i = 0"), " and exactly k - 1 lags are positive: then it is the k-th task of the "
            "oldest job, which leaves, and every server at N drops by one.",
        ),
    )
    return Section(base.title, base.blocks + rules)


def fj_title(net: ForkJoinNetwork, verdict: str, what: str) -> str:
    return f"{net.name} is {verdict}: {what}"


# ----------------------------------------------------------------------------- capacity
def explain_capacity(ctx: Context) -> Proof:
    """The proof of a ``fork-join-capacity`` certificate: the flow-balance bound on the job throughput.

    Parameters
    ----------
    ctx : Context
        A verified fork-join capacity certificate and its network.

    Returns
    -------
    Proof
        Claim, network, the theorem (flow balance) with its hypotheses, the bound
        over the capped set R with its slack, and how to re-check it.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import capacity_certificate
    >>> from certify.explain import explain
    >>> from certify.exact.forkjoin import check_capacity
    >>> from certify.core.model import ForkJoinNetwork
    >>> net = ForkJoinNetwork("n3k2", 3, 2, F(1, 2), (("1", F(3, 5)), ("2", F(1, 5)), ("3", F(1, 5))))
    >>> proof = explain(net, capacity_certificate(net, ["1"], check_capacity(net, ["1"])))
    >>> proof.title
    'n3k2 is unstable: a flow-balance bound on the job throughput'
    >>> "\\\\frac{2}{5}" in proof.render("markdown")
    True
    """
    net = fj_net(ctx)
    f = ctx.facts.checked
    assert isinstance(f, CapacityFacts)
    ids, d = server_ids(net), server_rates(net)
    R = list(ctx.reading.args[1])
    assert R == f.capped
    outside = [d[i] for i, s in enumerate(ids) if s not in R]
    rest = sum(outside, Fraction(0))
    m = len(R)
    assert rest / (net.k - m) == f.bound
    lam, theta, bound = f.lam, f.theta, f.bound
    R_tex = set_tex(R) if R else "\\emptyset"
    what = "a flow-balance bound on the job throughput"

    statement: list[Block] = [
        para(
            "Let R be a set of at most k - 1 servers and ", Math("d(R^c)"), " the sum of the rates of the servers outside "
            "R. Let A(t) and D(t) count the jobs arrived and departed by time t, and let ", Math("\\Pi_i"), " be a "
            "Poisson process of rate ", Math("d_i"), " whose points are server i's potential completions. Each departed "
            "job has exactly k completed tasks, at k distinct servers, and server i has completed at most ",
            Math("\\min(\\Pi_i(t), D(t))"), " tasks of departed jobs (at most one per job), so",
        ),
        Display((
            "k\\,D(t) &\\le \\sum_{i} \\min(\\Pi_i(t), D(t)) \\le \\lvert R\\rvert\\,D(t) + \\sum_{i \\notin R} \\Pi_i(t),",
            "\\limsup_{t \\to \\infty} \\frac{D(t)}{t} &\\le \\frac{d(R^c)}{k - \\lvert R\\rvert} \\quad \\text{almost surely.}",
        )),
        para(
            "If this bound is below the job rate ", Math("\\lambda = \\lim_t A(t)/t"), ", the number of jobs ",
            Math("N(t) = N(0) + A(t) - D(t)"), " has ", Math("\\liminf_t N(t)/t \\ge \\lambda - d(R^c)/(k - \\lvert R\\rvert) > 0"),
            ": it grows linearly from every initial state, so the chain is transient and the system is not stable.",
        ),
    ]
    checks = [
        para(
            "R has at most k - 1 servers: R = ", Math(R_tex), f" has {m} server{'s' * (m != 1)} and k - 1 = {net.k - 1}.",
        ),
        para(
            "Exponential services: the fork-join-redundancy/1 format has only exponential servers, so while busy "
            "server i completes tasks at the points of a Poisson process of rate ", Math("d_i"),
            " (the coupling with ", Math("\\Pi_i"), " above).",
        ),
        para(
            "The job rate: jobs arrive as a Poisson process of rate ", Math(f"\\lambda = {frac_tex(lam)}"),
            ", so ", Math("A(t)/t \\to \\lambda"), " almost surely (any arrival process with this long-run rate would do).",
        ),
        para(
            "The bound is below the job rate: ", Math(f"d(R^c)/(k - \\lvert R\\rvert) = {frac_tex(rest)}/{net.k - m} = {frac_tex(bound)}"),
            " < ", Math(f"\\lambda = {frac_tex(lam)}"), ", by ", Math(frac_tex(lam - bound)), ".",
        ),
    ]
    rows = tuple(
        (sid, Math(frac_tex(d[i])), "yes: counts at most once per job" if sid in R else "no: counts its rate")
        for i, sid in enumerate(ids)
    )
    cond = Table(
        ("condition", "left side", "right side", "slack"),
        (
            (Math("\\lvert R\\rvert \\le k - 1"), Math(str(m)), Math(str(net.k - 1)), Math(str(net.k - 1 - m))),
            (Math("\\frac{d(R^c)}{k - \\lvert R\\rvert} < \\lambda"), Math(frac_tex(bound)), Math(frac_tex(lam)),
             Math(frac_tex(lam - bound))),
        ),
        "The certificate's conditions (slack: right side minus left side)",
    )
    relation = (
        "the bound over R equals theta: R is a set attaining the water-filling minimum"
        if bound == theta else f"the bound over R exceeds theta by {bound - theta} (R does not attain the minimum, "
        "and its bound is still below the job rate)"
    )
    bound_sec = Section(
        "The bound, exactly",
        (
            Table(("server", "rate d_i", "in R"), rows, "The servers and the capped set R"),
            Display((f"\\frac{{d(R^c)}}{{k - \\lvert R\\rvert}} = \\frac{{{_sum_tex(outside)}}}{{{net.k} - {m}}} = "
                     f"{frac_tex(bound)} < {frac_tex(lam)} = \\lambda",)),
            cond,
            para(
                "The throughput capacity ", Math("\\theta"), " (the root of ", Math("\\sum_i \\min(d_i, \\theta) = k\\theta"),
                ", the least such bound over all R) is ", Math(f"\\theta = {frac_tex(theta)}"), "; here ", relation,
                ". The job rate is ", Math(f"\\lambda/\\theta = {frac_tex(lam / theta)}"), " times the capacity.",
            ),
            para("There is no exceptional set: the bound holds from every initial state."),
        ),
    )
    mins = [min(x, theta) for x in d]
    independent: list[Block] = [
        para("By hand: add the rates of the servers outside R, divide by k - |R|, and compare with the job rate:"),
        Display((f"\\frac{{{_sum_tex(outside)}}}{{{net.k - m}}} = {frac_tex(bound)} < {frac_tex(lam)}",)),
        para("and the capacity solves the water-filling equation:"),
        Display((f"\\sum_i \\min(d_i, \\theta) = {_sum_tex(mins)} = {frac_tex(sum(mins, Fraction(0)))} = "
                 f"{net.k} \\cdot {frac_tex(theta)} = k\\theta",)),
    ]
    sections = (
        claim_section(ctx, "unstable", what),
        fj_network(net),
        hypotheses_section("Flow balance for fork-join jobs (the throughput bound)",
                           "the capacity bound of 'Stability of Fork-Join Systems with Redundancy and Heterogeneous "
                           "Servers', as in certify.exact.forkjoin", statement, checks),
        bound_sec,
        recheck_section(ctx, independent),
    )
    return Proof(fj_title(net, "unstable", what), sections)


# ----------------------------------------------------------------------------- (k,k) independent servers
def foster_statement() -> list[Block]:
    return [
        para(
            "Let X be a continuous-time Markov chain on a countable set with bounded jump rates (so it does not "
            "explode) and a state x0 reachable from every state. If V is bounded below, F is a finite set and ",
            Math("\\varepsilon > 0"), " with",
        ),
        Display(("AV(x) = \\sum_{y \\ne x} q(x, y)\\,(V(y) - V(x)) \\le -\\varepsilon \\quad \\text{for every } x \\notin F",)),
        para("(and AV finite on F), then X is positive recurrent: from every state it reaches the class of x0 in finite "
             "expected time, and it has a unique stationary distribution."),
    ]


def explain_independent(ctx: Context) -> Proof:
    """The proof of a ``fork-join-independent`` certificate: k = n and V = sum_i Q_i^2.

    Parameters
    ----------
    ctx : Context
        A verified (k,k) certificate and its network.

    Returns
    -------
    Proof
        Claim, network, Foster's criterion with its hypotheses, V and its drift
        in closed form, the per-server drift coefficients with their slack, the
        exceptional set and how to re-check (a worked state).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import independent_certificate
    >>> from certify.explain import explain
    >>> from certify.exact.forkjoin import check_independent
    >>> from certify.core.model import ForkJoinNetwork
    >>> net = ForkJoinNetwork("n2k2", 2, 2, F(1, 2), (("1", F(1)), ("2", F(1))))
    >>> proof = explain(net, independent_certificate(net, check_independent(net)))
    >>> proof.title
    'n2k2 is stable: independent M/M/1 queues (k = n)'
    """
    net = fj_net(ctx)
    f = ctx.facts.checked
    assert isinstance(f, IndependentFacts)
    ids, d = server_ids(net), server_rates(net)
    lam, mus, dmin = Fraction(net.rate), mu_star(net), min(d)
    const = net.n * lam + mus
    assert f.slope == 2 * (dmin - lam) and f.bound == (const + 1) / f.slope
    what = "independent M/M/1 queues (k = n)"
    Q = [station_tex(s, "Q") for s in ids]
    norm = "\\lVert q\\rVert_{1}"
    top = ceil(f.bound) - 1  # F = {|q|_1 <= top}
    n_exc = comb(top + net.n, net.n) if top >= 0 else 0

    checks = [
        para(
            f"No cancellation: k = {net.k} = n. A job leaves when its last task is done, so every server serves every "
            "task, FCFS at rate ", Math("d_i"), "; each ", Math("Q_i"), " is an M/M/1 queue with arrival rate ",
            Math(f"\\lambda = {frac_tex(lam)}"), " (the queues are dependent through the common arrivals; the drift "
            "below uses only each one's jumps).",
        ),
        para(
            "The chain: it jumps from q to q + (1, ..., 1) at rate ", Math("\\lambda"), " and to ", Math("q - e_i"),
            " at rate ", Math("d_i"), " when ", Math("Q_i > 0"), "; every q is reached from the empty state (max q "
            "arrivals, then completions) and leads back to it (completions only); the total rate is at most ",
            Math(f"\\lambda + \\mu^* = {frac_tex(lam + mus)}"), ".",
        ),
        para("V is bounded below: ", Math("V(q) = \\sum_i Q_i^2 \\ge 0"), "."),
        para(
            "The drift off a finite set: ", Math(f"\\lambda = {frac_tex(lam)} < \\min_i d_i = {frac_tex(dmin)}"),
            ", so the slope ", Math(f"2(\\min_i d_i - \\lambda) = {frac_tex(f.slope)}"), " is positive and ",
            Math(f"AV \\le -{frac_tex(f.slope)}\\,{norm} + {frac_tex(const)} \\le -1"), " whenever ",
            Math(f"{norm} \\ge \\frac{{n\\lambda + \\mu^* + 1}}{{2(\\min_i d_i - \\lambda)}} = {frac_tex(f.bound)}"),
            "; so the criterion holds with ", Math("\\varepsilon = 1"), ".",
        ),
        para(
            "The exceptional set ", Math(f"F = \\{{q : {norm} < {frac_tex(f.bound)}\\}}"), f" is finite ({n_exc} states), "
            "and AV is finite on it (bounded rates).",
        ),
    ]
    v_sec = Section(
        "The Lyapunov function and its drift",
        (
            Display((f"V(q) = {' + '.join(f'{x}^{{2}}' for x in Q)}",)),
            para("With ", Math("b_i = 1\\{Q_i > 0\\}"), " (server i busy), an arrival raises every ", Math("Q_i^2"),
                 " by ", Math("2Q_i + 1"), " and a completion at i lowers it by ", Math("2Q_i - 1"), ":"),
            Display((
                "AV(q) &= \\sum_i \\left[2 Q_i (\\lambda - d_i b_i) + \\lambda + d_i b_i\\right]",
                "&\\le -2\\left(\\min_i d_i - \\lambda\\right) \\lVert q\\rVert_{1} + n\\lambda + \\mu^*",
                f"&= -{frac_tex(f.slope)}\\,{norm} + {frac_tex(const)},",
            )),
            para(
                "using ", Math("Q_i b_i = Q_i"), " and ", Math(f"n\\lambda + \\mu^* = {net.n} \\cdot {frac_tex(lam)} + "
                f"{frac_tex(mus)} = {frac_tex(const)}"), ". On the states where exactly the servers of B are busy, ",
                Math("AV = \\sum_{i \\in B} 2(\\lambda - d_i) Q_i + n\\lambda + d(B)"), " exactly; the coefficient of each ",
                Math("Q_i"), " is at most the slope's negative:",
            ),
        ),
    )
    order = sorted(range(net.n), key=lambda i: (d[i], i))
    rows = tuple(
        (ids[i], Math(frac_tex(d[i])), Math(frac_tex(2 * (lam - d[i]))), Math(frac_tex(-f.slope)),
         Math(frac_tex(2 * (d[i] - dmin))))
        for i in order
    )
    coef = Table(("server", "rate d_i", "coefficient of Q_i when busy", "at most", "slack"), rows,
                 "The drift's coefficient of each busy queue (tightest first)")
    table_blocks, appendix = summarised(coef, ctx.max_rows, "The drift coefficients of all servers")
    v_sec = Section(v_sec.title, v_sec.blocks + tuple(table_blocks))
    exc = Section(
        "The exceptional set",
        (para("AV <= -1 at every state outside ", Math(f"F = \\{{q : {norm} < {frac_tex(f.bound)}\\}}"),
              f", a set of {n_exc} states (those with at most {max(top, 0)} tasks in all)."),),
    )
    m = ceil(f.bound / net.n)
    state = tuple([m] * net.n)

    def V(q: Sequence[int]) -> int:
        return sum(x * x for x in q)

    moves = sorted(transitions(net, state).items())
    av = sum((r * (V(t) - V(state)) for t, r in moves), Fraction(0))
    ex_rows = tuple((Math(vector_tex(t)), Math(frac_tex(r)), Math(str(V(t) - V(state)))) for t, r in moves)
    independent: list[Block] = [
        para(
            "Independently, at any state q: list its jumps by the fork/cancel rules (the function transitions of "
            "certify.exact.forkjoin_lags lists them), add rate times (V(target) - V(q)), and compare with ",
            Math(f"-{frac_tex(f.slope)}\\,{norm} + {frac_tex(const)}"), ". For example at ", Math(f"q = {vector_tex(state)}"),
            " (every server busy, ", Math(f"{norm} = {m * net.n} \\ge {frac_tex(f.bound)}"), "):",
        ),
        Table(("target", "rate", "V(target) - V(q)"), ex_rows, f"The jumps out of {state}"),
        Display((f"AV(q) = {frac_tex(av)} \\le {frac_tex(-f.slope * m * net.n + const)} \\le -1",)),
    ]
    sections = (
        claim_section(ctx, "stable", what),
        fj_network(net),
        hypotheses_section(*FOSTER, foster_statement(), checks),
        v_sec,
        exc,
        recheck_section(ctx, independent),
    )
    return Proof(fj_title(net, "stable", what), sections, tuple(appendix))


# ----------------------------------------------------------------------------- the lag table
