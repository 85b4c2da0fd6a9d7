r"""The worst station set of a subset criterion, exactly, by max flows (no enumeration of 2^J sets).

The subset criteria of :mod:`certify.exact.theory` (Bramson's condition for
networks without feedback, the DHK criterion for homogeneous feedback) ask for

.. math:: \theta^* = \max_{A \ne \emptyset} r(A), \qquad r(A) = \frac{w(A)}{\mu(A)},
   \qquad w(A) = \sum_{C \subseteq A} w_C, \quad \mu(A) = \sum_{j \in A} \mu_j,

over the non-empty sets A of stations, for weights ``w_C >= 0`` on choice sets
(the stream rates; for DHK ``lam_C + lam*/(1-p*) p_C``) and rates ``mu_j > 0``.
:func:`max_ratio` computes theta* and a maximizing set in polynomial time,
in exact arithmetic (``Fraction`` data, integer max flows after scaling by the
common denominator); pure Python.

**1. The cut lemma (Gale's supply-demand theorem).**  For theta >= 0 let N_theta
be the network source -> C (capacity w_C, for each choice set with w_C > 0)
-> j for j in C (capacity infinite) -> sink (capacity theta mu_j).  A cut S
(the source side) of finite capacity cuts no infinite arc, so every choice set
in S lies inside its station part A = S ∩ stations, and

.. math:: \mathrm{cap}(S) = \sum_{C \notin S} w_C + \theta\mu(A) \ge W - g_\theta(A),
   \qquad g_\theta(A) = w(A) - \theta\mu(A), \quad W = \sum_C w_C,

with equality for the canonical cut S_A = {source} ∪ {C : C ⊆ A} ∪ A.  So the
minimum cut is W - max_A g_theta(A) (the maximum over all A, the empty set
included: g(∅) = 0), the station part of every minimum cut maximizes g_theta,
and, by max-flow/min-cut, **the maximum flow is W iff w(A) <= theta mu(A) for
every A** (Hall's condition in Gale's form: the supplies w_C can be routed to
the stations of their sets within the capacities theta mu_j).  Hence theta >=
theta* iff the maximum flow of N_theta is W.

**2. Dinkelbach's iteration terminates with theta* exactly.**  Start from
theta_0 = r(all stations) <= theta*.  At theta_k = r(B_k) (some non-empty B_k,
so theta_k <= theta*) compute a maximum flow.  If it is W, theta_k >= theta*:
theta_k = theta* and B_k is a maximizer.  Otherwise the stations A_k reachable
from the source in the residual graph (the source side of a minimum cut) have
g_{theta_k}(A_k) = W - flow > 0, so A_k is non-empty and r(A_k) > theta_k; set
theta_{k+1} = r(A_k).  The theta_k strictly increase and each is one of the
finitely many values r(A): the iteration stops, at theta*, after finitely many
steps.  More: mu(A_k) strictly decreases.  (A_k maximizes g_{theta_k} and
A_{k+1} maximizes g_{theta_{k+1}}; adding the two optimality inequalities gives
(theta_{k+1} - theta_k)(mu(A_k) - mu(A_{k+1})) >= 0; equality of the mu's would
give w(A_{k+1}) <= w(A_k), hence g_{theta_{k+1}}(A_{k+1}) <= g_{theta_{k+1}}(A_k)
= 0, against the step being taken.)  So the number of max flows is at most one
more than the number of distinct values mu(A), A non-empty -- J + 1 when all
rates are equal, 1 + sum mu for integer rates -- and, in general, strongly
polynomial: T. Radzik (*Newton's method for fractional combinatorial
optimization*, FOCS 1992) proves a strongly polynomial bound on the number of
iterations of Newton's (= Dinkelbach's) method for linear fractional
combinatorial problems.  In practice it takes a handful (``bench/theorems.py``).

**3. Which maximizer: the lattice of minimum cuts.**  Several sets may attain
theta*.  At theta* the maximizers of g are the empty set and exactly the
non-empty sets with r(A) = theta*.  g is supermodular (``[C ⊆ A∪B] + [C ⊆ A∩B]
>= [C ⊆ A] + [C ⊆ B]``; mu is modular), so its maximizers are closed under
union and intersection.  Fix a maximum flow f (value W, so every source arc is
saturated).  Every minimum cut is closed in the residual graph (no residual arc
leaves it), and every closed set holding the source and not the sink is a
minimum cut.  For a station j let R_j be the nodes reachable from j in the
residual graph.  If R_j holds the sink, no maximizer contains j (the canonical
cut of such a maximizer would be a closed set holding j, hence R_j, hence the
sink).  Otherwise {source} ∪ R_j is a minimum cut, so M_j = R_j ∩ stations is
a maximizer; it holds j; and it lies inside every maximizer holding j (whose
canonical cut is closed and holds j).  So M_j is the **least maximizer holding
j**, and every inclusion-minimal non-empty maximizer is one of the M_j (it holds
some j, and M_j ⊆ it).  :func:`max_ratio` reports the maximizer with the fewest
stations, the lexicographically first (as a sorted tuple) among those: a
smallest maximizer is inclusion-minimal, so it is the least of the M_j in that
order.  That is the set an enumeration by size, then in
:func:`itertools.combinations` order, keeping the first strict improvement, finds.

Computing the minimal M_j does not need one search per station: the
residual graph's strongly connected components (Tarjan's algorithm, which
emits them sinks first) give them at once -- M_j is inclusion-minimal exactly
when no component reachable from j's, other than j's own, holds a station, and
then M_j is the set of stations of j's component.

The result is checked, not only computed: the last flow is re-read from its
arcs as a routing of every w_C to stations of C with at most theta* mu_j at
each station (which gives w(A) <= theta* mu(A) for every A, whatever
algorithm found it), and the reported set's ratio is recomputed from the data
and must equal theta*; either failing raises (it would be a bug).

Cost: one max flow (Dinic's algorithm, O(V^2 E) each, far less on these
four-layer networks) per iteration, then one linear-time pass over the
residual graph.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import lcm
from typing import NamedTuple

__all__ = ["RatioMax", "max_closure", "max_ratio"]

_S, _T = 0, 1  # the source and the sink; choice sets are nodes 2.., then the stations


class _FlowNetwork:
    """A residual graph with integer capacities: arcs ``e`` and ``e ^ 1`` are each other's reverse."""

    def __init__(self, n: int) -> None:
        self.adj: list[list[int]] = [[] for _ in range(n)]
        self.to: list[int] = []
        self.cap: list[int] = []

    def add(self, u: int, v: int, c: int) -> None:
        self.adj[u].append(len(self.to))
        self.to.append(v)
        self.cap.append(c)
        self.adj[v].append(len(self.to))
        self.to.append(u)
        self.cap.append(0)

    def max_flow(self) -> int:
        """Dinic's algorithm from the source to the sink; the residual capacities are left in ``cap``."""
        to, cap, adj = self.to, self.cap, self.adj
        n, total = len(adj), 0
        while True:
            level = [-1] * n
            level[_S] = 0
            queue = [_S]
            for u in queue:  # breadth-first levels (the list grows while it is read)
                for e in adj[u]:
                    if cap[e] > 0 and level[to[e]] < 0:
                        level[to[e]] = level[u] + 1
                        queue.append(to[e])
            if level[_T] < 0:
                return total
            it = [0] * n
            path: list[int] = []
            u = _S
            while True:  # blocking flow: depth-first along level arcs, without recursion
                if u == _T:
                    f = min(cap[e] for e in path)
                    for e in path:
                        cap[e] -= f
                        cap[e ^ 1] += f
                    total += f
                    path.clear()
                    u = _S
                    continue
                arcs, i = adj[u], it[u]
                while i < len(arcs) and not (cap[arcs[i]] > 0 and level[to[arcs[i]]] == level[u] + 1):
                    i += 1
                it[u] = i
                if i < len(arcs):
                    path.append(arcs[i])
                    u = to[arcs[i]]
                    continue
                if u == _S:
                    break
                level[u] = -1  # a dead end for this phase
                u = to[path.pop() ^ 1]
                it[u] += 1

    def reach(self, start: int) -> set[int]:
        """Nodes reachable from ``start`` along residual arcs."""
        to, cap, adj = self.to, self.cap, self.adj
        seen, stack = {start}, [start]
        while stack:
            u = stack.pop()
            for e in adj[u]:
                v = to[e]
                if cap[e] > 0 and v not in seen:
                    seen.add(v)
                    stack.append(v)
        return seen

    def coreach(self, goal: int) -> set[int]:
        """Nodes from which ``goal`` is reachable along residual arcs."""
        to, cap, adj = self.to, self.cap, self.adj
        seen, stack = {goal}, [goal]
        while stack:
            v = stack.pop()
            for e in adj[v]:  # e: v -> u, so e ^ 1: u -> v
                u = to[e]
                if cap[e ^ 1] > 0 and u not in seen:
                    seen.add(u)
                    stack.append(u)
        return seen

    def least_closures(self, roots: list[int], first: int) -> list[list[int]]:
        """The inclusion-minimal sets R_j ∩ {nodes >= first}, j among ``roots`` (R_j: nodes reachable from j).

        Tarjan's strongly connected components of the residual graph, found
        from ``roots``, come out sinks first; R_j ∩ {>= first} is minimal
        exactly when no component reachable from j's, other than j's own, holds
        a node ``>= first`` -- and it is then the marked nodes of j's component.
        """
        to, cap, adj = self.to, self.cap, self.adj
        n = len(adj)
        index, low, comp = [-1] * n, [0] * n, [-1] * n
        on_stack = [False] * n
        marked: list[bool] = []  # per component: holds a node >= first, or reaches one in another component
        stack: list[int] = []
        out: list[list[int]] = []
        counter = 0
        for root in roots:
            if index[root] >= 0:
                continue
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on_stack[root] = True
            work = [(root, 0)]
            while work:
                u, i = work[-1]
                arcs = adj[u]
                descended = False
                while i < len(arcs):
                    e = arcs[i]
                    i += 1
                    if cap[e] <= 0:
                        continue
                    v = to[e]
                    if index[v] < 0:
                        work[-1] = (u, i)
                        index[v] = low[v] = counter
                        counter += 1
                        stack.append(v)
                        on_stack[v] = True
                        work.append((v, 0))
                        descended = True
                        break
                    if on_stack[v]:
                        low[u] = min(low[u], index[v])
                if descended:
                    continue
                work.pop()
                if work:
                    p = work[-1][0]
                    low[p] = min(low[p], low[u])
                if low[u] != index[u]:
                    continue
                c, members = len(marked), []
                while True:
                    v = stack.pop()
                    on_stack[v] = False
                    comp[v] = c
                    members.append(v)
                    if v == u:
                        break
                below = any(
                    cap[e] > 0 and comp[to[e]] != c and marked[comp[to[e]]] for v in members for e in adj[v]
                )
                own = sorted(v for v in members if v >= first)
                marked.append(below or bool(own))
                if own and not below:
                    out.append(own)
        return out


def _items(weights: Mapping[tuple[int, ...], Fraction], mu: Sequence[Fraction]) -> list[tuple[tuple[int, ...], Fraction]]:
    if not mu or any(m <= 0 for m in mu):
        raise ValueError("max_ratio: the station rates must be positive (and there must be a station)")
    items = []
    for C, w in weights.items():
        if w < 0:
            raise ValueError(f"max_ratio: negative weight {w} on the set {C}")
        if any(not 0 <= j < len(mu) for j in C) or not C:
            raise ValueError(f"max_ratio: the set {C} is empty or names a station outside 0..{len(mu) - 1}")
        if w:
            items.append((tuple(sorted(set(C))), Fraction(w)))
    return items


def _network(
    items: list[tuple[tuple[int, ...], Fraction]], mu: Sequence[Fraction], theta: Fraction
) -> tuple[_FlowNetwork, int, int]:
    """N_theta scaled to integers by the common denominator; returns it, the scaled total weight W and the scale."""
    J, m = len(mu), len(items)
    scale = lcm(*(w.denominator for _, w in items), *((theta * x).denominator for x in mu))
    ws = [int(w * scale) for _, w in items]
    total = sum(ws)
    net = _FlowNetwork(2 + m + J)
    for i, ((C, _), w) in enumerate(zip(items, ws)):
        net.add(_S, 2 + i, w)
        for j in C:
            net.add(2 + i, 2 + m + j, total + 1)  # "infinite": more than every cut through source arcs alone
    for j, x in enumerate(mu):
        c = int(theta * x * scale)
        if c:
            net.add(2 + m + j, _T, c)
    return net, total, scale


def _routes_everything(net: _FlowNetwork, items: list[tuple[tuple[int, ...], Fraction]], mu: Sequence[Fraction],
                       theta: Fraction, scale: int) -> bool:
    """Check the flow left in ``net`` as a witness of w(A) <= theta mu(A) for every A (part 1), from its arcs alone.

    Each choice set's weight goes, in non-negative parts, to stations of that
    set, and no station gets more than theta mu_j: then w(A) is at most the
    flow into A's stations, at most theta mu(A).  Integer arithmetic on the
    scaled data; independent of how the flow was found.
    """
    m, into = len(items), [0] * len(mu)
    for i, (C, w) in enumerate(items):
        sent = 0
        for e in net.adj[2 + i]:
            if e % 2 == 0:  # an arc C -> j added by _network; its flow is the reverse arc's residual
                j, f = net.to[e] - 2 - m, net.cap[e ^ 1]
                if f < 0 or j not in C:
                    return False
                into[j] += f
                sent += f
        if sent != w * scale:
            return False
    return all(into[j] <= theta * x * scale for j, x in enumerate(mu))


def _ratio(items: list[tuple[tuple[int, ...], Fraction]], mu: Sequence[Fraction], A: set[int]) -> Fraction:
    return sum((w for C, w in items if A.issuperset(C)), Fraction(0)) / sum((mu[j] for j in A), Fraction(0))


def max_closure(weights: Mapping[tuple[int, ...], Fraction], mu: Sequence[Fraction], theta: Fraction) -> tuple[Fraction, tuple[int, ...]]:
    """The maximum of w(A) - theta mu(A) over all station sets A (the empty one included), and its least maximizer.

    One max flow on N_theta (see the module docstring, part 1); the least
    maximizer is the station part of the residual closure of the source.

    Parameters
    ----------
    weights : mapping of tuple of int to Fraction
        w_C >= 0 for choice sets C (station indices ``0..J-1``).
    mu : sequence of Fraction
        The station rates mu_j > 0.
    theta : Fraction
        The multiplier, theta >= 0.

    Returns
    -------
    tuple of (Fraction, tuple of int)
        max_A (w(A) - theta mu(A)) and the smallest set attaining it (sorted; empty when 0 is the maximum).

    Examples
    --------
    Stream {0} of rate 2 and stream {0, 1} of rate 1, unit rates: at theta = 1
    the set {0} gains 2 - 1 = 1 and {0, 1} gains 3 - 2 = 1 too; {0} is the least.

    >>> from fractions import Fraction as F
    >>> max_closure({(0,): F(2), (0, 1): F(1)}, (F(1), F(1)), F(1))
    (Fraction(1, 1), (0,))
    """
    if theta < 0:
        raise ValueError("max_closure: theta must be >= 0")
    items = _items(weights, mu)
    net, total, scale = _network(items, mu, Fraction(theta))
    flow = net.max_flow()
    side = net.reach(_S)
    A = tuple(sorted(v - 2 - len(items) for v in side if v >= 2 + len(items)))
    gain = sum((w for C, w in items if set(C) <= set(A)), Fraction(0)) - theta * sum((mu[j] for j in A), Fraction(0))
    assert gain == Fraction(total - flow, scale)  # the cut lemma, checked on the numbers
    return gain, A


class RatioMax(NamedTuple):
    """The maximum of w(A)/mu(A) over non-empty station sets, where it is attained, and the max flows it took.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> max_ratio({(0, 1): F(3)}, (F(1), F(2)))
    RatioMax(ratio=Fraction(1, 1), argmax=(0, 1), flows=1)
    """

    ratio: Fraction
    argmax: tuple[int, ...]
    flows: int


def max_ratio(weights: Mapping[tuple[int, ...], Fraction], mu: Sequence[Fraction]) -> RatioMax:
    """The exact maximum of w(A)/mu(A) over non-empty station sets A, by Dinkelbach's iteration on max flows.

    ``argmax`` is the maximizer with the fewest stations, the
    lexicographically first among those (module docstring, part 3): the set an
    enumeration by size and then in :func:`itertools.combinations` order,
    keeping the first strict improvement, reports.  When every weight is 0,
    every set has ratio 0 and ``argmax`` is ``(0,)``.

    Parameters
    ----------
    weights : mapping of tuple of int to Fraction
        w_C >= 0 for choice sets C (station indices ``0..J-1``); w(A) sums those with C inside A.
    mu : sequence of Fraction
        The station rates mu_j > 0.

    Returns
    -------
    RatioMax
        ``ratio`` (theta*), ``argmax`` (a sorted tuple) and ``flows`` (the max flows computed).

    Raises
    ------
    ValueError
        When a rate is not positive, a weight is negative, or a set names no station or an unknown one.

    Examples
    --------
    Stations of rates 1, 1, 2; a stream of rate 3/2 choosing {0, 1} and one of
    rate 1 choosing {2}: {0, 1} carries 3/2 on capacity 2, the worst ratio.

    >>> from fractions import Fraction as F
    >>> max_ratio({(0, 1): F(3, 2), (2,): F(1)}, (F(1), F(1), F(2)))
    RatioMax(ratio=Fraction(3, 4), argmax=(0, 1), flows=2)

    Ties: two separate pairs at the same ratio; the first one is reported.

    >>> max_ratio({(2, 3): F(1), (0, 1): F(1)}, (F(1),) * 4).argmax
    (0, 1)
    """
    items = _items(weights, mu)
    J, m = len(mu), len(items)
    if not items:
        return RatioMax(Fraction(0), (0,), 0)
    theta, flows = _ratio(items, mu, set(range(J))), 0
    while True:
        net, total, scale = _network(items, mu, theta)
        flow = net.max_flow()
        flows += 1
        if flow == total:
            break
        side = net.reach(_S)
        A = {v - 2 - m for v in side if v >= 2 + m}
        better = _ratio(items, mu, A)
        if not better > theta:  # part 2: the minimum cut's stations beat theta
            raise AssertionError(f"max_ratio: the minimum cut's set {sorted(A)} does not beat {theta}")
        theta = better
    # theta* exactly: the flow routes every weight within theta mu (the upper bound, checked on its arcs) ...
    if not _routes_everything(net, items, mu, theta, scale):
        raise AssertionError("max_ratio: the maximum flow does not route every weight within theta mu")
    # Part 3: the inclusion-minimal least maximizers M_j (j in the largest maximizer); the smallest, first.
    blocked = net.coreach(_T)
    roots = [2 + m + j for j in range(J) if 2 + m + j not in blocked]
    minimal = [tuple(v - 2 - m for v in M) for M in net.least_closures(roots, 2 + m)]
    best = min(minimal, key=lambda M: (len(M), M), default=None)
    # ... and a non-empty set attains it (the lower bound, recomputed from the data)
    if best is None or _ratio(items, mu, set(best)) != theta:
        raise AssertionError(f"max_ratio: no reported set attains {theta}")
    return RatioMax(theta, best, flows)
