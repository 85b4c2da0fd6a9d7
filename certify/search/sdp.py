"""The SDP search of the quartic SOS template (:class:`certify.templates.polynomial.QuarticSOS`).

One SDP: maximise delta subject to the coefficient identities and the Gram
matrices PSD (with a margin).  The exact side of the template (identities,
rounding, the checker) stays in :mod:`certify.templates.polynomial`.
"""

from __future__ import annotations

import time
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..core.clock import remaining
from ..templates import polynomial as poly
from ..templates.monomials import multinomial
from ..templates.polynomial import QuarticSOS
from .lp import LPResult
from .solvers import TIME_LIMIT, installed_solvers, run_problem

__all__ = ["solve_quartic"]


def solve_quartic(tmpl: QuarticSOS, solver: str | None = None, deadline: float | None = None) -> LPResult:
    """One SDP: maximise delta subject to the identities, the Gram matrices PSD (with a margin).

    ``|c_a|`` <= 1, and every Gram matrix is kept at least ``GRAM_MARGIN`` inside
    the PSD cone so that rounding keeps it PSD.

    Parameters
    ----------
    tmpl : QuarticSOS
        The template, built on the chain's region drifts.
    solver : str, optional
        An SDP solver (Clarabel, SCS, MOSEK, CVXOPT) if installed; otherwise (an
        LP-only solver such as HiGHS, or none named) the first installed of
        Clarabel and SCS.
    deadline : float, optional
        A ``time.perf_counter()`` value: the SDP solver gets the time left before
        it (and before the deadline in force: Clarabel ``time_limit``, SCS
        ``time_limit_secs``); a solve it stops has the status ``time-limit``.

    Returns
    -------
    LPResult
        The float solution (c, T, delta, the Q and n, in ``variables()`` order;
        a candidate only) or the status that stopped the search.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> tmpl = QuarticSOS(chain, compile_drifts(chain))
    >>> res = solve_quartic(tmpl)
    >>> res.status, res.found, res.notes[0]
    ('optimal', True, '5 Gram matrices, 11 identity equations')
    >>> theta = next(tmpl.candidates(res.theta))
    >>> tmpl.check_side(theta), tmpl.exact_drift(theta, {})[0]
    ([], [])
    """
    nvar = len(tmpl._names)
    have = set(installed_solvers())
    sdp = [s for s in ("CLARABEL", "SCS") if s in have]
    if solver not in ("CLARABEL", "SCS", "MOSEK", "CVXOPT") or solver not in have:
        solver = sdp[0] if sdp else "none"  # an LP-only solver (HiGHS) was asked for: use an SDP one
    if not tmpl.blocks:
        return LPResult("no-rows", None, None, 0, nvar, 0.0, solver, notes=["no unbounded region"])
    if max(b.K for b in tmpl.blocks) > poly.MAX_GENERATORS:
        return LPResult("too-large", None, None, tmpl.n_equations, nvar, 0.0, solver,
                        notes=[f"a region has more than {poly.MAX_GENERATORS} cone generators"])
    if solver == "none":
        return LPResult("solver-error", None, None, tmpl.n_equations, nvar, 0.0, solver, notes=["no SDP solver installed"])
    left = remaining(deadline)
    if left is not None and left <= 0:
        return LPResult(TIME_LIMIT, None, None, tmpl.n_equations, nvar, 0.0, solver, notes=["not solved: the time limit had passed"])
    t0 = time.perf_counter()
    nv, m2 = len(tmpl.vmonos), len(tmpl.qmonos)
    D = tmpl.chain.scale
    c = cp.Variable(nv)
    delta = cp.Variable()
    T = cp.Variable((m2, m2), symmetric=True)
    # coefficient map of m(x)'T m(x) on vec(T): symmetric in (i, j), so the vec order is irrelevant
    rows, cols = [], []
    for i in range(m2):
        for j in range(m2):
            rows.append(tmpl.vpos[tuple(p + q for p, q in zip(tmpl.qmonos[i], tmpl.qmonos[j]))])
            cols.append(i * m2 + j)
    MT = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(nv, m2 * m2))
    cons = [c <= 1, c >= -1, T >> poly.GRAM_MARGIN * np.eye(m2), c - MT @ cp.vec(T, order="F") >= 0]
    grams: list[list[Any]] = []
    ns = []
    for blk in tmpl.blocks:
        rd = tmpl.drifts[blk.region]
        K, nb = blk.K, len(blk.bmonos)
        bpos = {b: k for k, b in enumerate(blk.bmonos)}
        # F[b, a]: coefficient of lam^b in -(m . grad x^a)(G lam)
        F = np.zeros((nb, nv))
        for ia, a in enumerate(tmpl.vmonos):
            for i in range(tmpl.chain.J):
                if a[i] and rd.mean[i]:
                    alpha = a[:i] + (a[i] - 1,) + a[i + 1 :]
                    for b, e in tmpl._power(blk.G, alpha).items():
                        F[bpos[b], ia] -= rd.mean[i] * a[i] * e / D
        mult = np.array([multinomial(b) for b in blk.bmonos], dtype=float)
        n = cp.Variable(nb, nonneg=True)
        ns.append(n)
        rhs = n
        Qs = []
        if blk.gram:
            for k in range(K):
                Q = cp.Variable((K, K), symmetric=True)
                Qs.append(Q)
                cons.append(Q >> poly.GRAM_MARGIN * np.eye(K))
                r_, c_ = [], []
                for i in range(K):
                    for j in range(K):
                        bk = [0] * K
                        bk[k] += 1
                        bk[i] += 1
                        bk[j] += 1
                        r_.append(bpos[tuple(bk)])
                        c_.append(i * K + j)
                AQ = sp.csr_matrix((np.ones(len(r_)), (r_, c_)), shape=(nb, K * K))
                rhs = rhs + AQ @ cp.vec(Q, order="F")
        grams.append(Qs)
        cons.append(F @ c - mult * delta == rhs)
    prob = cp.Problem(cp.Maximize(delta), cons)
    # warnings captured; a solver failure or a solve stopped by the time limit is reported, never a verdict
    res = run_problem(prob, solver, values=(delta, c), time_limit=remaining(deadline))
    status, notes = res.status, res.notes
    elapsed = time.perf_counter() - t0
    if not res.ok:
        return LPResult(status, None, None, tmpl.n_equations, nvar, elapsed, solver, notes=notes)
    assert delta.value is not None and c.value is not None  # res.ok: every value asked for is set
    theta = np.zeros(nvar)
    theta[:nv] = c.value
    Tv = np.asarray(T.value)
    for t, (i, j) in enumerate(tmpl.tpairs):
        theta[tmpl.toff + t] = Tv[i, j]
    theta[tmpl.idelta] = float(delta.value)
    for blk, Qs, n in zip(tmpl.blocks, grams, ns):
        for Q, ent in zip(Qs, blk.qidx):
            Qv = np.asarray(Q.value)
            for i, j, idx in ent:
                theta[idx] = Qv[i, j]
        theta[blk.noff : blk.noff + len(blk.bmonos)] = n.value
    blocks = sum(len(q) for q in grams) + 1
    notes = [f"{blocks} Gram matrices, {tmpl.n_equations} identity equations", *notes]
    return LPResult(status, float(delta.value), theta, tmpl.n_equations, nvar, elapsed, solver, notes=notes)
