"""The readable proof of a fluid Lyapunov certificate (kind ``fluid``: linear or quadratic V on the fluid model).

The faces, their velocity sets and the exact maximum of dV/dt on each are those
of the checker (:func:`~certify.markov.fluid.fluid_faces`,
:func:`~certify.markov.fluid_rates.fluid_rows`, :func:`~certify.markov.fluid_rates.max_rate`),
so the slack printed on each face is the one the check saw.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from ..core.hypotheses import DAI_CONDITIONS, dai_violations
from ..core.latex import frac_tex, linear_tex, norm_tex, poly_tex, quadratic_terms, region_tex, set_tex, station_tex
from ..core.model import Network
from ..core.vocabulary import FluidKind
from ..exact.facts import FluidFacts
from ..markov.chain import Chain
from ..markov.fluid import FluidFace, fluid_chain, fluid_faces
from ..markov.fluid_rates import Scaled, fluid_rows, max_rate, rate_vector
from ..markov.regions import region_of
from ..markov.symmetry import Symmetry
from .common import Context, claim_section, hypotheses_section, network_section, recheck_section
from .document import Block, Display, Math, Proof, Section, Table, para, summarised

__all__ = ["explain_fluid"]

_POSITIVE = re.compile(r" \\ge 1(?![0-9])")

DAI = "Dai's fluid-limit theorem, for JSQ networks"
DAI_SOURCE = (
    "J. G. Dai, 'On positive Harris recurrence of multiclass queueing networks: a unified approach via fluid limit models', "
    "Ann. Appl. Probab. 5 (1995); for JSQ networks S. Foss and N. Chernova, Queueing Systems 29 (1998), "
    "J. G. Dai, J. J. Hasenbein and B. Kim, Queueing Systems 57 (2007), M. Bramson, Ann. Appl. Probab. 21 (2011)"
)


def _face_tex(chain: Chain, face: FluidFace, symmetry: Symmetry | None) -> Math:
    region = face.region
    if symmetry is not None and not symmetry.trivial:  # the face's piece on the chamber: name the whole face
        region = region_of(fluid_chain(chain), region.key)
    tex = region_tex(region.describe(chain.ids, [station_tex(s, "z") for s in chain.ids]))
    return Math(_POSITIVE.sub(" > 0", tex))  # a face is a cone: the integer region's x >= 1 is z > 0


def _velocity_tex(chain: Chain, face: FluidFace) -> Math:
    v0 = "(" + ", ".join(frac_tex(v) for v in face.v0) + ")"
    if face.fixed:
        return Math(f"v = {v0}")
    empties = set_tex([chain.ids[e] for e in face.empties])
    return Math(f"v_0 = {v0},\\ \\text{{plus the throughputs of }} {empties}")


def _function_tex(kind: FluidKind, coeffs: Any, ids: tuple[str, ...]) -> str:
    if kind == "linear":
        return f"V(z) = {linear_tex(list(coeffs), ids, var='z')}"
    J = len(ids)
    terms = quadratic_terms((((i, j), coeffs[i][j]) for i in range(J) for j in range(i, J)), J)
    return f"V(z) = {poly_tex(terms, ids, var='z')}"


Row = tuple[Fraction, tuple[Any, ...]]  # (slack, the table's cells)


def _rows(chain: Chain, kind: FluidKind, coeffs: Any, faces: list[FluidFace], facts: FluidFacts, symmetry: Symmetry | None) -> list[Row]:
    worst: dict[int, Fraction] = {}
    count: dict[int, int] = {}
    linear = Scaled.of(rate_vector(kind, coeffs, ())) if kind == "linear" else None
    for k, g in fluid_rows(chain, faces, kind):
        rate = max_rate(faces[k], linear if linear is not None else Scaled.of(rate_vector(kind, coeffs, g)))
        ratio = rate / (sum(g) if g else 1)
        worst[k] = max(worst.get(k, ratio), ratio)
        count[k] = count.get(k, 0) + 1
    out = []
    for k, w in worst.items():
        cells = (f"F{k}", _face_tex(chain, faces[k], symmetry), _velocity_tex(chain, faces[k]), str(count[k]), Math(frac_tex(w)),
                 Math(frac_tex(-w - facts.delta)))
        out.append((-w - facts.delta, cells))
    out.sort(key=lambda t: t[0])
    return out


def explain_fluid(ctx: Context) -> Proof:
    """The proof of stability from a fluid Lyapunov certificate (every law with these means, under Dai's conditions).

    Parameters
    ----------
    ctx : Context
        A verified ``fluid`` certificate and its network.

    Returns
    -------
    Proof
        Claim, network, Dai's theorem with its hypotheses checked, V in closed
        form, every fluid face with the exact maximum of dV/dt over its velocity
        set and the slack, and how to re-check.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.certificates import fluid_certificate
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.exact import check_fluid
    >>> from certify.explain import explain
    >>> from certify.markov.chain import compile_chain
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> cert = fluid_certificate(net, chain, "linear", [F(1), F(1)], check_fluid(chain, "linear", [F(1), F(1)]))
    >>> md = explain(net, cert).render("markdown")
    >>> "Dai's fluid-limit theorem" in md, "V(z) = z_{1} + z_{2}" in md
    (True, True)
    """
    chain, kind, coeffs = ctx.reading.args
    symmetry: Symmetry | None = ctx.reading.kwargs.get("symmetry")
    facts: FluidFacts = ctx.facts.checked
    net = ctx.net
    assert isinstance(net, Network)
    faces = fluid_faces(chain, symmetry=symmetry) if symmetry is not None and not symmetry.trivial else fluid_faces(chain)
    general = ctx.facts.semantics == "general"
    violations = dai_violations(net)
    checks = [
        para("The fluid model is the network's: each station j works at rate mu_j while it has fluid, each stream's fluid "
             "goes to the least-loaded stations of its choice set (split in any way among ties: every tie-breaking rule), "
             "feedback in proportion to the service flow; only the means enter."),
        para("V >= eta |z|^2 (quadratic) or eta |z|_1 (linear) with ", Math(f"\\eta = {frac_tex(facts.eta)} > 0"),
             (": every weight is positive (the least is eta)." if kind == "linear" else
              ": the diagonal dominance margin of P (min_i P_ii minus the negative off-diagonal mass of row i).")),
        para("dV/dt <= ", Math("-\\delta" if kind == "linear" else f"-\\delta {norm_tex('z')}"), " along every fluid path away from 0, ",
             Math(f"\\delta = {frac_tex(facts.delta)}"), f": on each of the {facts.faces} faces, the maximum of dV/dt over the "
             "face's whole velocity set (an exact fractional knapsack over the throughputs of its empty stations) is at most "
             + ("-delta." if kind == "linear" else "-delta |g|_1 at every generator g of the face's closure.")),
        para(f"The interarrival laws ({DAI_CONDITIONS}): "
             + ("hold: every stream's law has a density on (0, infinity)." if not violations else
                "do NOT hold (" + "; ".join(violations) + "): the proof covers the fluid model only.")),
    ]
    if symmetry is not None and not symmetry.trivial:
        classes = "; ".join(set_tex([chain.ids[a] for a in c]) for c in symmetry.classes)
        checks.append(para(
            "Symmetry: the station classes ", Math(classes), " are exchangeable (each exchange maps the network to itself; "
            "checked) and w is constant on each class (checked), so dV/dt on a face equals dV/dt on its image: the faces "
            "listed are those meeting the sorted chamber, one per orbit."
        ))
    statement: list[Block] = [para(
        "If every fluid path reaches 0 in a time proportional to its initial size and stays there, the network is positive "
        "Harris recurrent for every i.i.d. service and interarrival law with the given means whose interarrival times are "
        "unbounded and spread out, under every tie-breaking rule. A function V with V(z) >= eta |z|^2 (or eta |z|_1) and "
        "dV/dt <= -delta |z|_1 (or -delta) along every fluid path away from 0 shows that the fluid model is stable."
    )]
    rows = _rows(chain, kind, coeffs, faces, facts, symmetry)
    table = Table(("", "face", "velocities", "conditions", "largest dV/dt per unit of |g|_1", "slack"),
                  tuple(c for _, c in rows), "dV/dt on each fluid face, tightest first")
    shown, appendix = summarised(table, ctx.max_rows, "dV/dt on every fluid face")
    fn = Section("The fluid Lyapunov function", (
        para(f"V ({kind}), with the certificate's exact coefficients, on the fluid levels ", Math(station_tex("j", "z")), ":"),
        Display((_function_tex(kind, coeffs, chain.ids),)),
    ))
    faces_section = Section("dV/dt on every fluid face", (
        para(f"The fluid state space is cut into {facts.faces} faces by which stations are empty and which are least loaded in "
             f"each choice set; {facts.rows} conditions are checked exactly. The slack is how far the largest dV/dt stays below ",
             Math("-\\delta"), ":"),
        *shown,
    ))
    verdict = "stable (positive Harris recurrent)" if general else "fluid-stable (its fluid model is stable)"
    independent = [para(
        "Independently: at any fluid state z, the admissible velocities are those of the fluid rules above (an LP over the "
        "splits of each stream among its least-loaded stations and the throughputs of the empty stations); the maximum of "
        "dV/dt over them must be at most -delta (linear) or -delta |z|_1 (quadratic). certify's test suite solves that LP with "
        "scipy at random fluid states (tests/independent.py)."
    )]
    sections = (
        claim_section(ctx, verdict, f"a fluid Lyapunov certificate ({kind})"),
        network_section(net),
        hypotheses_section(DAI, DAI_SOURCE, statement, checks),
        fn,
        faces_section,
        recheck_section(ctx, independent),
    )
    return Proof(f"{net.name} is {verdict}: a fluid Lyapunov certificate", sections, tuple(appendix))
