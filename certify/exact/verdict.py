"""What a theorem says about a network: :class:`TheoremVerdict`, and :class:`Hypotheses` beyond the means.

A criterion of :mod:`certify.exact.theory` (or the fork-join theorem,
:func:`certify.exact.forkjoin_capacity.fork_join`) answers with a
:class:`TheoremVerdict`: the outcome of its deciding inequality, the numbers,
the source, the hypotheses it checked, and whether that outcome is proved on
the network.  The helpers here build the verdict of the common shape: a stable
side resting on the fluid model and Dai's theorem (which needs Dai's
interarrival conditions, carried by :class:`Hypotheses`), an unstable side
resting on flow balance.  Exact and numpy-free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..core.jsontypes import JsonObject
from ..core.vocabulary import Semantics, TheoremOutcome

if TYPE_CHECKING:
    from ..core.model import Network

__all__ = ["TheoremVerdict", "Hypotheses", "MARKOVIAN", "DAI_HYPOTHESIS", "sign", "verdict_of", "fluid_theorem_verdict"]


@dataclass(frozen=True)
class TheoremVerdict:
    """A theorem's outcome on a network, with the hypotheses it checked.

    ``verdict`` is what the theorem's inequality says: ``stable``, ``unstable``,
    or ``critical`` (equality: the theorem says nothing).  It is a proof on this
    network only when ``proved`` is True; otherwise ``missing`` lists the
    hypotheses that fail or are not established (e.g. Dai's interarrival
    conditions, or a criterion that is a cross-check, not a proved theorem).

    Attributes
    ----------
    theorem : str
        The theorem's name (what a ``theorem`` certificate names).
    verdict : TheoremOutcome
        ``stable``, ``unstable`` or ``critical``.
    source : str
        Where the theorem is proved.
    numbers : str
        The numbers that decide the inequality, in words.
    semantics : Semantics
        For which laws the verdict holds: ``general`` or ``markovian``.
    hypotheses : tuple of str
        The hypotheses checked on the network.
    proved : bool
        Whether the verdict is a proof on this network.
    missing : tuple of str
        What is not established when ``proved`` is False.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.exact.theory import jackson
    >>> from certify.markov.chain import Chain
    >>> ch = Chain(("1",), (F(2),), (((0,), F(1)),), (), (F(1),))
    >>> tv = jackson(ch)
    >>> tv.verdict, tv.proved, tv.numbers
    ('stable', True, 'max_j a_j/mu_j = 0.5 at station 1 (a = traffic-equation rates)')
    """

    theorem: str
    verdict: TheoremOutcome
    source: str
    numbers: str
    semantics: Semantics = "general"
    hypotheses: tuple[str, ...] = field(default=())
    proved: bool = True
    missing: tuple[str, ...] = field(default=())

    @property
    def decides(self) -> bool:
        """True when this is a proved ``stable`` or ``unstable`` verdict (``critical`` decides nothing).

        Returns
        -------
        bool
            ``proved`` and a verdict other than ``critical``.

        Examples
        --------
        >>> TheoremVerdict("t", "critical", "a paper", "lam = mu", proved=False).decides
        False
        """
        return self.proved and self.verdict in ("stable", "unstable")

    def to_json(self) -> JsonObject:
        """The verdict as plain JSON (``certify prove --json`` prints one per entry of ``Result.theorems``).

        Returns
        -------
        dict
            Every field, the tuples as lists.

        Examples
        --------
        >>> TheoremVerdict("t", "stable", "a paper", "lam/mu = 0.5", hypotheses=("no feedback",)).to_json()["hypotheses"]
        ['no feedback']
        """
        return {
            "theorem": self.theorem,
            "verdict": self.verdict,
            "source": self.source,
            "numbers": self.numbers,
            "semantics": self.semantics,
            "hypotheses": list(self.hypotheses),
            "proved": self.proved,
            "missing": list(self.missing),
        }

    def __getitem__(self, key: str) -> Any:
        """A field by its JSON name, as in :meth:`to_json` (``tv["verdict"]``; tuples as lists).

        ``Result.theorems`` held the JSON form before it held these objects; reading them like it still works.

        Examples
        --------
        >>> tv = TheoremVerdict("t", "stable", "a paper", "lam/mu = 0.5", missing=("x",))
        >>> tv["source"], tv["missing"]
        ('a paper', ['x'])
        """
        return self.to_json()[key]


@dataclass(frozen=True)
class Hypotheses:
    """What the criteria need beyond the means: the streams that break Dai's interarrival conditions.

    Attributes
    ----------
    interarrival : tuple of str
        One entry per stream whose interarrival law is not unbounded and
        spread out (empty: Dai's conditions hold).

    Examples
    --------
    >>> MARKOVIAN.interarrival
    ()
    """

    interarrival: tuple[str, ...] = ()

    @classmethod
    def of(cls, net: Network) -> Hypotheses:
        """The hypotheses as they hold on ``net`` (checked exactly: :func:`certify.core.hypotheses.dai_violations`).

        Parameters
        ----------
        net : Network
            The network, with its interarrival laws.

        Returns
        -------
        Hypotheses
            The streams that break Dai's conditions.

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from certify.core.model import Distribution, Network, Station, Stream
        >>> det = Distribution("deterministic", (("value", F(1)),))
        >>> net = Network("d", (Station("1", F(2)),), (Stream(F(1), choice=("1",), interarrival=det),))
        >>> len(Hypotheses.of(net).interarrival)
        1
        """
        from ..core.hypotheses import dai_violations

        return cls(tuple(dai_violations(net)))


# A bare chain stands for its exponential network: Poisson streams meet Dai's conditions.
MARKOVIAN = Hypotheses()

DAI_HYPOTHESIS = "interarrival laws unbounded and spread out (Dai 1995; Bramson 2011 (1.11)-(1.12))"


def sign(lhs: Fraction, rhs: Fraction) -> int:
    """The side of a deciding inequality: -1 when lhs < rhs, 0 on equality, 1 when lhs > rhs.

    Parameters
    ----------
    lhs, rhs : Fraction
        The two sides (load and capacity, say).

    Returns
    -------
    int
        -1, 0 or 1.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> sign(F(1, 2), F(1)), sign(F(1), F(1))
    (-1, 0)
    """
    return (lhs > rhs) - (lhs < rhs)


def verdict_of(worst: int) -> TheoremOutcome:
    """The verdict of the worst side of the inequalities: -1 ``stable``, 0 ``critical``, 1 ``unstable``.

    Parameters
    ----------
    worst : int
        The largest :func:`sign` over the inequalities.

    Returns
    -------
    TheoremOutcome
        ``stable``, ``critical`` or ``unstable``.

    Examples
    --------
    >>> verdict_of(-1), verdict_of(0)
    ('stable', 'critical')
    """
    outcomes: dict[int, TheoremOutcome] = {-1: "stable", 0: "critical", 1: "unstable"}
    return outcomes[worst]


def fluid_theorem_verdict(
    theorem: str, worst: int, source: str, numbers: str, structural: tuple[str, ...], hyp: Hypotheses
) -> TheoremVerdict:
    """A verdict of a theorem whose stable side is fluid stability + Dai's theorem and whose unstable side is flow balance.

    The stable side is proved only where Dai's interarrival conditions hold
    (``hyp``); the unstable side needs no distributional hypothesis; the
    critical case decides nothing.

    Parameters
    ----------
    theorem, source, numbers : str
        As in :class:`TheoremVerdict`.
    worst : int
        The largest :func:`sign` over the theorem's inequalities.
    structural : tuple of str
        The structural hypotheses checked (which routing the theorem covers).
    hyp : Hypotheses
        Dai's interarrival conditions as they hold on the network.

    Returns
    -------
    TheoremVerdict
        With the hypotheses checked and, where the verdict is not proved, what is missing.

    Examples
    --------
    >>> tv = fluid_theorem_verdict("t", -1, "a paper", "load 0.5", ("no feedback",), Hypotheses(("streams[0]: deterministic",)))
    >>> tv.verdict, tv.proved, tv.missing
    ('stable', False, ("Dai's conditions on the interarrival times fail: streams[0]: deterministic",))
    """
    verdict = verdict_of(worst)
    if verdict == "stable":
        if hyp.interarrival:
            checked = (*structural, f"{DAI_HYPOTHESIS}: FAILS ({'; '.join(hyp.interarrival)})")
            missing = (f"Dai's conditions on the interarrival times fail: {'; '.join(hyp.interarrival)}",)
            return TheoremVerdict(theorem, verdict, source, numbers, hypotheses=checked, proved=False, missing=missing)
        return TheoremVerdict(theorem, verdict, source, numbers, hypotheses=(*structural, f"{DAI_HYPOTHESIS}: hold"))
    if verdict == "unstable":
        return TheoremVerdict(
            theorem, verdict, source, numbers, hypotheses=(*structural, "unstable side: flow balance, any distributions")
        )
    return TheoremVerdict(
        theorem, verdict, source, numbers, hypotheses=structural, proved=False,
        missing=("the inequality holds with equality (critical): the theorem gives no verdict",),
    )
