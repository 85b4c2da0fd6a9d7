"""Exact symmetry reduction: station classes, the sorted chamber, and fluid checks on one face per orbit."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest

from certify.exact.stability import check_fluid
from certify.markov.chain import Chain, compile_chain
from certify.markov.fluid import fluid_faces
from certify.markov.regions import enumerate_regions, region_of, signature
from certify.markov.symmetry import Symmetry, chamber_argmins, is_automorphism, station_classes


def random_chain(seed: int, J: int = 4, feedback: bool = False) -> Chain:
    """A random chain whose stations come in a few rate types, with streams closed under some permutations.

    Streams are made symmetric by adding the images of a random stream under a random
    rate-preserving permutation (so some, not all, stations are interchangeable).
    """
    rng = random.Random(seed)
    types = [rng.choice([F(1), F(2)]) for _ in range(J)]
    perm = list(range(J))
    for t in set(types):
        idx = [a for a in range(J) if types[a] == t]
        shuffled = idx[:]
        rng.shuffle(shuffled)
        for a, b in zip(idx, shuffled):
            perm[a] = b
    arrivals: dict[tuple[int, ...], F] = {}
    for _ in range(rng.randint(1, 3)):
        C = tuple(sorted(rng.sample(range(J), rng.randint(1, J))))
        lam = F(rng.randint(1, 4), 4)
        orbit = {C}
        cur = C
        for _ in range(J):
            cur = tuple(sorted(perm[a] for a in cur))
            orbit.add(cur)
        for D in orbit:
            arrivals[D] = arrivals.get(D, F(0)) + lam
    fb: list[tuple[int, tuple[int, ...], F]] = []
    if feedback:
        i = rng.randrange(J)
        fb = [(i, (i,), F(1, 4))]
    leave = tuple(F(1) - sum((p for s, _, p in fb if s == a), F(0)) for a in range(J))
    return Chain(tuple(str(a + 1) for a in range(J)), tuple(types), tuple(sorted(arrivals.items())), tuple(fb), leave)


def brute_force_classes(chain: Chain) -> set[frozenset[int]]:
    """Station classes from every permutation of the stations, with the automorphism test written out anew."""

    def image(perm: tuple[int, ...]) -> tuple:
        arr = sorted((tuple(sorted(perm[a] for a in C)), lam) for C, lam in chain.arrivals)
        fb = sorted((perm[i], tuple(sorted(perm[a] for a in C)), p) for i, C, p in chain.feedback)
        mu = [None] * chain.J
        leave = [None] * chain.J
        for a in range(chain.J):
            mu[perm[a]], leave[perm[a]] = chain.mu[a], chain.leave[a]
        return (arr, fb, mu, leave)

    same = image(tuple(range(chain.J)))
    autos = [p for p in itertools.permutations(range(chain.J)) if image(p) == same]
    swaps = {(a, b) for p in autos for a in range(chain.J) for b in range(a + 1, chain.J)
             if p[a] == b and p[b] == a and all(p[c] == c for c in range(chain.J) if c not in (a, b))}
    classes = {frozenset([a]) for a in range(chain.J)}
    for a, b in swaps:
        ca = next(c for c in classes if a in c)
        cb = next(c for c in classes if b in c)
        if ca != cb:
            classes -= {ca, cb}
            classes.add(ca | cb)
    return {c for c in classes if len(c) > 1}


def sort_within(point: tuple[int, ...], sym: Symmetry) -> tuple[int, ...]:
    """The point with its coordinates sorted ascending within every class (its image in the chamber)."""
    out = list(point)
    for c in sym.classes:
        for a, v in zip(c, sorted(point[a] for a in c)):
            out[a] = v
    return tuple(out)


@pytest.mark.parametrize("seed", range(40))
def test_station_classes_match_brute_force(seed):
    """station_classes finds exactly the classes of transpositions that brute force over all permutations finds."""
    chain = random_chain(seed, J=5, feedback=seed % 3 == 0)
    got = {frozenset(c) for c in station_classes(chain).classes}
    assert got == brute_force_classes(chain)


@pytest.mark.parametrize("seed", range(25))
def test_chamber_regions_cover_every_orbit(seed):
    """Every region's point, sorted within the classes, lies in a region listed on the chamber, with the same signature."""
    chain = random_chain(seed, J=4)
    sym = station_classes(chain)
    chamber = {r.key for r in enumerate_regions(chain, symmetry=sym)}
    full = enumerate_regions(chain)
    assert chamber <= {r.key for r in full}
    for r in full:
        assert signature(chain, sort_within(r.point(), sym)) in chamber


@pytest.mark.parametrize("seed", range(25))
def test_region_of_rebuilds_the_whole_region(seed):
    """region_of(key) gives the full region's DBM for every signature of the full enumeration."""
    chain = random_chain(seed, J=4, feedback=seed % 2 == 0)
    for r in enumerate_regions(chain):
        assert region_of(chain, r.key).dbm == r.dbm


def test_chamber_argmins_are_prefixes_per_class():
    """On the chamber, a choice set's tied stations of one class are a prefix of the set's stations of that class."""
    got = set(chamber_argmins((0, 1, 2, 4), Symmetry(((0, 1, 2), (3, 4)))))
    want = {B for k in range(1, 5) for B in itertools.combinations((0, 1, 2, 4), k)
            if [a for a in B if a < 3] == [0, 1, 2][: len([a for a in B if a < 3])]}
    assert got == want


def test_automorphism_respects_tie_breaking():
    """Exchanging two stations whose tie-breaking probabilities differ is not an automorphism."""
    ties = (((0, 1), (F(1, 3), F(2, 3))),)
    ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(1)),), (), (F(1), F(1)), ties)
    assert not is_automorphism(ch, (1, 0))
    assert station_classes(ch).trivial


@pytest.mark.parametrize("seed", range(30))
def test_symmetric_fluid_check_agrees_with_the_full_check(seed):
    """For weights constant on the classes, the check on one face per orbit decides as the full check, with the same delta."""
    chain = random_chain(seed, J=4)
    sym = station_classes(chain)
    rng = random.Random(seed)
    w = [F(1)] * chain.J
    for c in sym.classes:
        v = F(rng.randint(1, 6), rng.randint(1, 3))
        for a in c:
            w[a] = v
    for a in range(chain.J):
        if sym.class_of(a) is None:
            w[a] = F(rng.randint(1, 6), rng.randint(1, 3))
    full = check_fluid(chain, "linear", w)
    reduced = check_fluid(chain, "linear", w, symmetry=sym)
    assert full.ok == reduced.ok
    if full.ok:
        assert full.facts.delta == reduced.facts.delta
    assert len(fluid_faces(chain, symmetry=sym)) <= len(fluid_faces(chain))


def test_a_false_symmetry_is_refused():
    """A claimed class holding two stations of different rates fails the check, naming them."""
    ch = Chain(("1", "2"), (F(1), F(2)), (((0, 1), F(1)),), (), (F(1), F(1)))
    chk = check_fluid(ch, "linear", [F(1), F(1)], symmetry=Symmetry(((0, 1),)))
    assert not chk.ok
    assert chk.failures == ["exchanging stations 1 and 2 is not a symmetry of the network "
                            "(rates, streams, feedback or tie-breaking differ)"]


def test_symmetric_jsq_faces_grow_linearly():
    """Symmetric JSQ with one full-choice stream has one fluid face per orbit: about 1 + J of them, not 2^J."""
    for J in (6, 12, 24):
        ch = Chain(tuple(str(a + 1) for a in range(J)), (F(1),) * J, ((tuple(range(J)), F(J) * F(9, 10)),), (), (F(1),) * J)
        faces = fluid_faces(ch, symmetry=station_classes(ch))
        assert J <= len(faces) <= J + 4
        assert check_fluid(ch, "linear", [F(1)] * J, faces=faces, symmetry=station_classes(ch)).ok


@pytest.mark.parametrize("seed", range(30))
def test_chamber_faces_have_the_whole_faces_velocities(seed):
    """Each face listed on the chamber has the velocity set of the whole face with its signature (full enumeration)."""
    chain = random_chain(seed, J=4, feedback=seed % 2 == 1)
    sym = station_classes(chain)
    whole = {f.region.key: f for f in fluid_faces(chain)}
    for f in fluid_faces(chain, symmetry=sym):
        g = whole[f.region.key]
        assert (f.v0, f.empties, f.dirs, f.box, f.h, f.beta) == (g.v0, g.empties, g.dirs, g.box, g.h, g.beta)
        assert f.generators and all(x in (0, 1) for x in f.generators[0])


def _symmetric_certificate(J: int = 6, rates: tuple[F, ...] | None = None):
    """A network of J stations sharing one stream at load 0.9, and its linear fluid certificate checked on one face per orbit."""
    from certify.certificates import fluid_certificate
    from certify.core.model import Network, Station, Stream
    from certify.markov.chain import compile_chain

    mus = rates or (F(1),) * J
    net = Network("sym", tuple(Station(str(a + 1), mus[a]) for a in range(J)),
                  (Stream(sum(mus, F(0)) * F(9, 10), choice=tuple(str(a + 1) for a in range(J))),))
    chain = compile_chain(net)
    sym = station_classes(chain)
    w = [F(1)] * J
    chk = check_fluid(chain, "linear", w, symmetry=sym)
    assert chk.ok
    return net, fluid_certificate(net, chain, "linear", w, chk, symmetry=sym)


def test_symmetric_certificate_verifies():
    """A fluid certificate recording its station classes is re-checked by verify, which derives the same claims."""
    from certify.certificates import verify

    net, cert = _symmetric_certificate()
    assert cert["symmetry"] == [["1", "2", "3", "4", "5", "6"]]
    res = verify(net, cert)
    assert res.ok, res.failures
    assert res.facts.checked.faces < 2**6 - 1  # one face per orbit, not every face


def test_verify_refuses_a_symmetry_between_stations_of_different_rates():
    """A certificate whose stored class swaps two stations of different rates is refused, naming the two stations."""
    from certify.certificates import verify
    from tests.independent import reseal

    net, cert = _symmetric_certificate(4, (F(1), F(1), F(2), F(1)))
    assert cert["symmetry"] == [["1", "2", "4"]]
    bad = reseal({**cert, "symmetry": [["1", "2", "3", "4"]]})
    res = verify(net, bad)
    assert not res.ok
    assert any("exchanging stations" in f and "not a symmetry" in f for f in res.failures), res.failures


def test_verify_refuses_weights_that_are_not_invariant():
    """A certificate whose weights differ within a stored class is refused."""
    from certify.certificates import verify
    from tests.independent import reseal

    net, cert = _symmetric_certificate(4)
    coeffs = dict(cert["coefficients"], **{"w[2]": "2"})
    res = verify(net, reseal({**cert, "coefficients": coeffs}))
    assert not res.ok
    assert any("equal within every station class" in f for f in res.failures), res.failures


@pytest.mark.parametrize("value", [[["1"]], [["2", "1"]], [["1", "2"], ["2", "3"]], [["3", "4"], ["1", "2"]], "1,2", [["9", "1"]]])
def test_verify_refuses_malformed_classes(value):
    """A symmetry field that is not disjoint sorted classes of two or more known stations is refused, never raised."""
    from certify.certificates import verify
    from tests.independent import reseal

    net, cert = _symmetric_certificate(4)
    res = verify(net, reseal({**cert, "symmetry": value}))
    assert not res.ok
    assert any("symmetry" in f for f in res.failures), res.failures


@pytest.mark.parametrize("seed", range(20))
def test_transposition_shortcut_agrees_with_the_full_automorphism_test(seed):
    """The per-pair test station_classes uses agrees with is_automorphism on every transposition, ties included."""
    from certify.markov.symmetry import _Incidence

    base = random_chain(seed, J=5, feedback=seed % 2 == 0)
    rng = random.Random(seed)
    sets = [C for C, _ in base.arrivals if len(C) > 1]
    ties = []
    for C in sets[:2]:
        w = [F(rng.choice([1, 1, 2])) for _ in C]
        ties.append((C, tuple(x / sum(w) for x in w)))
    chain = Chain(base.ids, base.mu, base.arrivals, base.feedback, base.leave, tuple(ties))
    inc = _Incidence(chain)
    for a, b in itertools.combinations(range(chain.J), 2):
        perm = list(range(chain.J))
        perm[a], perm[b] = b, a
        assert inc.swap_preserves(chain, a, b) == is_automorphism(chain, perm), (a, b)


def test_symmetry_is_refused_for_a_quadratic_fluid_certificate():
    """The reduction is proved for linear fluid certificates only: a quadratic one claiming classes is refused."""
    J = 3
    ch = Chain(tuple(str(a + 1) for a in range(J)), (F(1),) * J, ((tuple(range(J)), F(2)),), (), (F(1),) * J)
    P = [[F(int(i == j)) for j in range(J)] for i in range(J)]
    chk = check_fluid(ch, "quadratic", P, symmetry=Symmetry(((0, 1, 2),)))
    assert chk.failures == ["a symmetry reduction applies to linear fluid certificates only"]


# ---------------------------------------------------------------- Foster certificates on one region per orbit


def _classes_network(per: int = 2):
    """Three server classes (rates 1/2, 1, 2) of ``per`` stations each sharing one full-choice stream at load 9/10."""
    from certify.core.model import Network, Station, Stream

    st = tuple(Station(f"{c}{k + 1}", r) for c, r in zip("abc", (F(1, 2), F(1), F(2))) for k in range(per))
    lam = sum((s.mu for s in st), F(0)) * F(9, 10)
    return Network("classes", st, (Stream(lam, choice=tuple(s.id for s in st)),))


def test_symmetric_quadratic_certificate_holds_at_every_state():
    """A quadratic Foster certificate checked on the chamber's regions satisfies AV <= -delta at random far states off the chamber too."""
    from certify.proof.pipeline import prove
    from tests.independent import check_foster

    net = _classes_network()
    res = prove(net, templates=["quadratic"], simulate=False)
    assert res.verdict == "stable" and res.certificate is not None
    assert res.certificate["symmetry"] == [["a1", "a2"], ["b1", "b2"], ["c1", "c2"]]
    check_foster(net, res.certificate, count=300)


def test_symmetric_quadratic_certificate_checks_fewer_regions():
    """verify re-checks a symmetric quadratic certificate on the chamber's regions, fewer than all the regions."""
    from certify.certificates import verify
    from certify.markov.chain import compile_chain
    from certify.proof.pipeline import prove

    net = _classes_network()
    cert = prove(net, templates=["quadratic"], simulate=False).certificate
    res = verify(net, cert)
    assert res.ok, res.failures
    assert res.facts.checked.regions < len(enumerate_regions(compile_chain(net)))
    assert res.facts.checked.symmetry == ((0, 1), (2, 3), (4, 5))


def test_verify_refuses_a_quadratic_that_is_not_invariant():
    """Changing one entry of P in a symmetric quadratic certificate is refused, naming the exchange that moves V."""
    from certify.certificates import verify
    from certify.proof.pipeline import prove
    from tests.independent import reseal

    net = _classes_network()
    cert = prove(net, templates=["quadratic"], simulate=False).certificate
    coeffs = dict(cert["coefficients"], **{"P[a1,b1]": "1/7"})
    res = verify(net, reseal({**cert, "coefficients": coeffs}))
    assert not res.ok
    assert any("not invariant under exchanging stations" in f for f in res.failures), res.failures


def test_verify_refuses_a_foster_symmetry_between_stations_of_different_rates():
    """A symmetric quadratic certificate whose stored class joins stations of different rates is refused."""
    from certify.certificates import verify
    from certify.proof.pipeline import prove
    from tests.independent import reseal

    net = _classes_network()
    cert = prove(net, templates=["quadratic"], simulate=False).certificate
    res = verify(net, reseal({**cert, "symmetry": [["a1", "a2", "b1"], ["c1", "c2"]]}))
    assert not res.ok
    assert any("not a symmetry" in f for f in res.failures), res.failures


def test_a_chamber_only_quadratic_without_invariance_is_refused():
    """A V that decreases on the chamber x1 <= x2 but is not invariant is refused before any drift is checked."""
    from certify.exact import check_foster
    from certify.markov.chain import Chain

    ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(3, 2)),), (), (F(1), F(1)))
    chk = check_foster(ch, "quadratic", [F(1), F(0), F(2)], symmetry=Symmetry(((0, 1),)))
    assert not chk.ok and "not invariant" in chk.failures[0], chk.failures


def test_symmetry_is_refused_for_the_table_template():
    """The table template has no invariant form: a symmetry passed to its check is refused."""
    from certify.exact import check_foster
    from certify.markov.chain import Chain

    ch = Chain(("1", "2"), (F(1), F(1)), (((0, 1), F(3, 2)),), (), (F(1), F(1)))
    chk = check_foster(ch, "table", {}, symmetry=Symmetry(((0, 1),)), options={"fast": ["1"], "K": 1})
    assert not chk.ok and "no invariant form" in chk.failures[0], chk.failures


def _mixed_network():
    """Three identical stations, a fixed faster one, two slow ones split by a second stream (one class of three)."""
    from certify.core.model import Network, Station, Stream

    st = (Station("a1", F(1)), Station("a2", F(1)), Station("a3", F(1)), Station("z", F(2)),
          Station("b1", F(1, 2)), Station("b2", F(1, 2)))
    return Network("mix", st, (Stream(F(3), choice=tuple(s.id for s in st)), Stream(F(1, 2), choice=("z", "b1"))))


@pytest.mark.parametrize("which", ["classes", "mixed"])
def test_orbit_lp_matrix_equals_the_full_matrix_times_the_tying(which):
    """The quadratic's orbit-variable LP matrix, built from class sums, equals lp_matrix() @ E."""
    import numpy as np

    from certify.markov.drift import compile_drifts
    from certify.search.lp import _tying
    from certify.templates import Quadratic
    from certify.templates.linear import LinearTemplate

    net = _classes_network() if which == "classes" else _mixed_network()
    ch = compile_chain(net)
    sym = station_classes(ch)
    tmpl = Quadratic(ch, compile_drifts(ch, enumerate_regions(ch, symmetry=sym)), symmetry=sym)
    nv = len(tmpl.variables())
    E = _tying(tmpl.tied(), nv, nv + len(tmpl.aux_variables()))
    assert np.abs(LinearTemplate.tied_lp_matrix(tmpl, E).toarray() - tmpl.tied_lp_matrix(E).toarray()).max() < 1e-12


@pytest.mark.parametrize("which", ["classes", "mixed"])
def test_block_drift_slopes_equal_the_dense_ones(which):
    """For an invariant P the exact slopes and affine bounds computed by blocks equal the row-by-row ones."""
    import numpy as np

    from certify.markov.drift import compile_drifts
    from certify.search.lp import _tying
    from certify.templates import Quadratic

    net = _classes_network() if which == "classes" else _mixed_network()
    ch = compile_chain(net)
    sym = station_classes(ch)
    drifts = compile_drifts(ch, enumerate_regions(ch, symmetry=sym))
    reduced, dense = Quadratic(ch, drifts, symmetry=sym), Quadratic(ch, drifts)
    nv = len(reduced.variables())
    E = _tying(reduced.tied(), nv, nv + len(reduced.aux_variables()))
    y = np.random.default_rng(0).integers(-5, 6, E.shape[1])
    theta = [F(int(v), 7) for v in (E @ y)[:nv]]
    assert reduced.invariance_failures(theta) == []
    assert reduced.row_values(theta) == dense.row_values(theta)
    assert reduced.affine_drifts(theta) == dense.affine_drifts(theta)
