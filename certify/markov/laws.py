"""Phase-type laws (exact): the phases, rates and exit probabilities of Erlang, hyperexponential and Coxian laws.

Erlang, hyperexponential, Coxian (and gamma with 1/scv an integer, which is
Erlang) service and interarrival times are phase-type (PH) distributions:
:func:`phase_type` writes one as a :class:`PhaseType`.  Deterministic,
lognormal and other gamma shapes have no finite phase representation:
:class:`NotPhaseType` says so (those networks belong to the fluid certificates
of general distributions), as it does for a law with more than
:data:`MAX_LAW_PHASES` phases.  The expansion of a whole network into phases is
:mod:`certify.markov.phases`.

Pure Python, exact: no numpy.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import isqrt

from ..core.errors import NotSupported
from ..core.model import Distribution
from ..core.numbers import solve

__all__ = ["PhaseType", "NotPhaseType", "phase_type", "phase_count", "coxian2", "COXIAN2_SCV_MIN", "MAX_LAW_PHASES"]

#: Most phases of one law (the loader's bound on Erlang k and on explicit phase lists).
MAX_LAW_PHASES = 1000


class NotPhaseType(NotSupported):
    """A distribution (or a network) with no exact finite phase-type representation.

    Examples
    --------
    >>> phase_type(Distribution("deterministic", ()), Fraction(1))
    Traceback (most recent call last):
    certify.markov.laws.NotPhaseType: deterministic has no finite phase-type representation
    """


@dataclass(frozen=True)
class PhaseType:
    """Start in phase i with probability ``alpha[i]``; in phase i move to phase j at
    rate ``moves`` (i, j, rate), and finish at rate ``exit[i]``.

    Attributes
    ----------
    alpha, exit : tuple of Fraction
        The initial law over the phases; the rate of finishing from each phase.
    moves : tuple of (int, int, Fraction)
        The rates of moving between phases.
    label : str
        A name for reports, e.g. ``Erlang-2``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> e2 = phase_type(Distribution("erlang", (("k", 2),)), F(1))
    >>> e2.alpha, e2.exit, e2.moves, e2.mean
    ((Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(2, 1)), ((0, 1, Fraction(2, 1)),), Fraction(1, 1))
    """

    alpha: tuple[Fraction, ...]
    exit: tuple[Fraction, ...]
    moves: tuple[tuple[int, int, Fraction], ...] = ()
    label: str = ""

    @property
    def n(self) -> int:
        """The number of phases."""
        return len(self.alpha)

    @cached_property
    def mean(self) -> Fraction:
        """alpha (-S)^{-1} 1, solved exactly (by back-substitution when every move goes to a later phase,
        as in every law of the format: linear in the number of phases and moves)."""
        n = self.n
        if all(j > i for i, j, _ in self.moves):
            out: dict[int, list[tuple[int, Fraction]]] = defaultdict(list)
            for i, j, r in self.moves:
                out[i].append((j, r))
            m = [Fraction(0)] * n
            for i in range(n - 1, -1, -1):
                total = self.exit[i] + sum((r for _, r in out[i]), Fraction(0))
                if total == 0:
                    raise NotPhaseType(f"{self.label or 'phase-type'}: some phase never finishes")
                m[i] = (1 + sum((r * m[j] for j, r in out[i]), Fraction(0))) / total
            return sum((a * v for a, v in zip(self.alpha, m)), Fraction(0))
        A = [[Fraction(0)] * n for _ in range(n)]
        for i in range(n):
            A[i][i] += self.exit[i]
        for i, j, r in self.moves:
            A[i][i] += r
            A[i][j] -= r
        sol = solve(A, [Fraction(1)] * n)
        if sol is None:
            raise NotPhaseType(f"{self.label or 'phase-type'}: some phase never finishes")
        return sum((a * v for a, v in zip(self.alpha, sol)), Fraction(0))

    def proper(self) -> bool:
        """True when every phase can reach the end (so every service and interarrival time is finite)."""
        done = {i for i in range(self.n) if self.exit[i] > 0}
        grew = True
        while grew:
            grew = False
            for i, j, r in self.moves:
                if r > 0 and j in done and i not in done:
                    done.add(i)
                    grew = True
        return len(done) == self.n and sum(self.alpha, Fraction(0)) == 1

    def rates(self) -> list[Fraction]:
        """Every rate that appears (for the integer scale)."""
        return [*self.exit, *(r for _, _, r in self.moves)]


def _rational_sqrt(q: Fraction) -> Fraction | None:
    a, b = isqrt(q.numerator), isqrt(q.denominator)
    return Fraction(a, b) if a * a == q.numerator and b * b == q.denominator else None


#: The smallest squared coefficient of variation of a Coxian-2 law (an Erlang-2).
COXIAN2_SCV_MIN = Fraction(1, 2)


def coxian2(scv: Fraction, rate: Fraction) -> tuple[tuple[Fraction, Fraction], tuple[Fraction]]:
    """The Coxian-2 law with mean ``1/rate`` and squared coefficient of variation ``scv`` >= 1/2, exactly.

    The two-moment fit: phase rates 2 rate and rate / scv, moving on from the
    first phase with probability 1 / (2 scv).  Mean 1/(2 rate) + (1/(2 scv))(scv/rate)
    = 1/rate; second moment (1 + scv)/rate^2.  At scv = 1/2 it is the Erlang-2;
    rational data give rational phases at every scv (no square roots, unlike a
    balanced hyperexponential).

    Parameters
    ----------
    scv : Fraction
        The squared coefficient of variation, at least :data:`COXIAN2_SCV_MIN`.
    rate : Fraction
        One over the mean.

    Returns
    -------
    rates : tuple of Fraction
        The two phase rates.
    probs : tuple of Fraction
        The probability of moving on from the first phase.

    Raises
    ------
    NotPhaseType
        For scv < 1/2 (no Coxian-2 has it).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> coxian2(F(2), F(1))
    ((Fraction(2, 1), Fraction(1, 2)), (Fraction(1, 4),))
    """
    scv, rate = Fraction(scv), Fraction(rate)
    if scv < COXIAN2_SCV_MIN:
        raise NotPhaseType(f"a Coxian-2 law has scv >= 1/2, not {scv}")
    return (2 * rate, rate / scv), (1 / (2 * scv),)


def phase_count(dist: Distribution) -> int | None:
    """The number of phases :func:`phase_type` gives ``dist``, without building it (None: no PH form).

    Parameters
    ----------
    dist : Distribution
        The law.

    Returns
    -------
    int or None
        The number of phases (1 for the exponential), or None without a finite phase-type form.

    Examples
    --------
    >>> phase_count(Distribution("erlang", (("k", 7),))), phase_count(Distribution("lognormal", (("scv", 2),)))
    (7, None)
    """
    p = dict(dist.params)
    if dist.is_exponential:
        return 1
    if dist.dist == "erlang":
        return int(p["k"])
    if dist.dist == "gamma":
        inv = 1 / Fraction(p["scv"])
        return int(inv) if inv.denominator == 1 else None
    if dist.dist == "hyperexponential":
        return 2 if "scv" in p else sum(1 for q in p["probs"] if q > 0)
    if dist.dist == "coxian":
        return 2 if "scv" in p else len(p["rates"])
    return None


def phase_type(dist: Distribution, rate: Fraction) -> PhaseType:
    """The PH representation of ``dist`` with mean ``1/rate`` (``rate`` = mu or the stream rate).

    Parameters
    ----------
    dist : Distribution
        The law (its shape; the mean comes from ``rate``).
    rate : Fraction
        One over the mean.

    Returns
    -------
    PhaseType
        The exact representation.

    Raises
    ------
    NotPhaseType
        For shapes without an exact finite representation, or more than
        :data:`MAX_LAW_PHASES` phases.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> h = phase_type(Distribution("hyperexponential", (("scv", F(5, 3)),)), F(1))
    >>> h.alpha, h.exit
    ((Fraction(3, 4), Fraction(1, 4)), (Fraction(3, 2), Fraction(1, 2)))
    """
    name, p = dist.dist, dict(dist.params)
    if dist.is_exponential:
        return PhaseType((Fraction(1),), (Fraction(rate),), (), "exponential")
    n = phase_count(dist)
    if n is not None and n > MAX_LAW_PHASES:
        raise NotPhaseType(f"{dist.describe()} would have {n} phases (limit {MAX_LAW_PHASES})")
    if name == "gamma" and (1 / p["scv"]).denominator == 1:
        name, p = "erlang", {"k": int(1 / p["scv"])}
    if name == "erlang":
        k = p["k"]
        r = k * Fraction(rate)
        alpha = tuple(Fraction(int(i == 0)) for i in range(k))
        ex = tuple(r if i == k - 1 else Fraction(0) for i in range(k))
        return PhaseType(alpha, ex, tuple((i, i + 1, r) for i in range(k - 1)), f"Erlang-{k}")
    if name == "hyperexponential" and "scv" in p:
        c2 = p["scv"]
        root = _rational_sqrt((c2 - 1) / (c2 + 1))
        if root is None:
            raise NotPhaseType(
                f"hyperexponential(scv={c2}) with balanced means has irrational parameters "
                "(sqrt((scv-1)/(scv+1)) is not rational); give explicit probs and rates"
            )
        p1 = (1 + root) / 2
        probs, rates = (p1, 1 - p1), (2 * p1 * rate, 2 * (1 - p1) * rate)
        return PhaseType(probs, rates, (), f"H{2}(balanced, scv={c2})")
    if name == "hyperexponential":
        # The probabilities as loaded (the loader makes them sum to exactly 1); never re-normalised here.
        keep = [(q, r) for q, r in zip(p["probs"], p["rates"]) if q > 0]
        total = sum((q for q, _ in keep), Fraction(0))
        if total != 1:
            raise NotPhaseType(f"hyperexponential probabilities sum to {total}, not exactly 1 "
                               "(certify.load normalises sums within 1e-9 of 1)")
        return PhaseType(tuple(q for q, _ in keep), tuple(r for _, r in keep), (), f"H{len(keep)}")
    if name == "coxian":
        rates, go = coxian2(p["scv"], rate) if "scv" in p else (p["rates"], p["probs"])
        n = len(rates)
        alpha = tuple(Fraction(int(i == 0)) for i in range(n))
        ex = tuple(rates[i] * (1 - go[i]) if i < n - 1 else rates[i] for i in range(n))
        mv = tuple((i, i + 1, rates[i] * go[i]) for i in range(n - 1) if go[i] > 0)
        return PhaseType(alpha, ex, mv, f"Coxian-2(scv={p['scv']})" if "scv" in p else f"Coxian-{n}")
    raise NotPhaseType(f"{dist.describe()} has no finite phase-type representation")
