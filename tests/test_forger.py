"""A hypothesis-driven forger: mutate real certificates of every kind, reseal the digest, and ask verify.

Property (every case x mutation class): ``verify`` never raises and answers within
seconds; it either refuses the mutated file, or the file it accepts is confirmed
independently (tests/independent.py, none of it certify's templates or checker):

* Foster: AV(x, phases) <= -delta, with delta the file's claim, at random states
  beyond the claimed exceptional-set bound (walls, empty stations, one queue
  dominating, phase vectors), V read from the file and the jumps written from the
  JSQ rules; V >= 0 there where the template promises it.
* growth: Af >= delta at random states with f > level, the same way.
* static-split: the dual constraints (u >= 0 on the sets of capped stations), the
  value < 0 and the claims, recomputed exactly from the network.
* overflow: the drift of f = x_u + h(y) at x_u = L, L + 1, L + 4, L + 17 for every
  capped level vector y, from the JSQ rules with capacities.
* sink-growth: f + A'g >= rate on a box of states of the reduced network R' and at far states, R' rebuilt
  from the network's fields and its nested certificate verified against that R', rate > mu_S (1 - p_SS); for a
  set of sinks (case sink-set) the same for every subset H, with its own g_H or its constant inflow, c_H > m_H;
  and G filled from the empty state ((l 1_G, 0) reached for l = 1, 2, searched state by state: hypothesis 4).
* sink-drain: u_H + A'g_H <= c_H < mu(H) for every subset H on a box of states of R' and at far states, R'
  rebuilt from the network's fields, g_H nondecreasing along Dirs(H) there, W's P >= 0 with A'W < 0 far out on R'
  with the ties' excess (every tied set enumerated) added as Poisson streams, and no subset function where it is
  positive (case sink-drain-ties).
* separable: AV(x) <= B - delta |x|_1 at random states and the slope of AV along
  random rays <= -delta |r|_1 (Foster), Af >= delta at random states, the empty one
  included (growth), V and f read from the file, the jumps from the JSQ rules.
* fluid: at random fluid states (ties, zeros) V >= eta |z|^2 (|z|_1 for linear) and
  every velocity of the true velocity set (a scipy LP written from the JSQ rules, as
  in tests/test_fluid.py) decreases V at rate delta.
* fork-join: V = N + h(lags) (Foster table) or sum Q_i^2 ((k,k)) has AV <= -delta
  (-1) at random states beyond the claimed set, from the fork/cancel rules; a
  capacity certificate's bound and theta are recomputed by brute force over the
  capped sets.

And an accepted file's ``semantics`` and ``statement`` equal the original's (the
derived ones): no mutation may change what is claimed.
"""

from __future__ import annotations

import copy
import json
import time
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import certify
from tests import independent as ind
from tests.real_certificates import ALL_CASES, CASES, case

# ---------------------------------------------------------------- independent confirmation

def _content(cert):
    return json.dumps({k: v for k, v in cert.items() if k != "digest"}, sort_keys=True)


@cache
def _confirm_cached(name, text, samples):
    net, orig = case(name)
    cert = json.loads(text)
    kind = cert.get("kind")
    if cert.get("semantics") != orig["semantics"] or cert.get("statement") != orig["statement"]:
        return f"semantics/statement changed: {cert.get('semantics')!r}, {cert.get('statement')!r}"
    network = cert.get("network")
    if not isinstance(network, dict) or network.get("digest") != orig["network"]["digest"]:
        return f"network changed: {cert.get('network')!r}"
    try:
        if isinstance(net, certify.ForkJoinNetwork) or str(kind).startswith("fork-join"):
            ind.check_fork_join(net, cert, count=2 * samples)
        elif kind == "foster":
            ind.check_foster(net, cert, count=samples)
        elif kind == "growth":
            ind.check_growth(net, cert, count=3 * samples)
        elif kind == "static-split":
            ind.check_static_split(net, cert)
        elif kind == "fluid":
            ind.check_fluid(net, cert, count=max(12, samples // 3))
        elif kind == "fluid-flow":
            ind.check_fluid_flow(net, cert, count=max(12, samples // 3))
        elif kind == "closed-set":
            ind.check_closed_set(net, cert)
        elif kind == "finite-state":
            ind.check_finite_state(net, cert)
        elif kind == "theorem":
            ind.check_theorem(net, cert)
        elif kind in ("overflow-foster", "overflow-growth"):
            ind.check_overflow(net, cert)
        elif kind == "separable-foster":
            ind.check_separable(net, cert, count=samples)
        elif kind == "separable-growth":
            ind.check_separable_growth(net, cert, count=2 * samples)
        elif kind == "sink-growth":
            ind.check_sink_growth(net, cert, count=samples)
        elif kind == "sink-drain":
            ind.check_sink_drain(net, cert, count=samples)
        else:
            return f"accepted a certificate of kind {kind!r}"
    except ind.Malformed as exc:
        return f"accepted a certificate that describes nothing well defined: {exc}"
    except AssertionError as exc:
        return f"independent evaluation refutes the accepted certificate: {exc}"
    return None


def confirm(name, cert, samples):
    """None when the independent evaluation confirms an accepted certificate, else what is wrong."""
    return _confirm_cached(name, _content(cert), samples)


def judge(name, cert, edits=(), samples=60, timeout=10.0):
    """The property: verify does not raise, answers within ``timeout``, and refuses or is confirmed."""
    net, _ = case(name)
    res = ind.verify_isolated(net, cert, timeout=timeout)
    assert res[0] != "timeout", f"{name}, edits {list(edits)!r}: verify ran past {timeout} s"
    assert res[0] != "raised", f"{name}, edits {list(edits)!r}: verify raised:\n{res[1]}"
    _, accepted, failures, seconds = res
    if accepted:
        wrong = confirm(name, cert, samples)
        assert wrong is None, f"{name}, edits {list(edits)!r}: verify ACCEPTED a forgery: {wrong}"
    return accepted, failures


# ---------------------------------------------------------------- mutations


class Edit:
    """One change to a certificate; its repr is the code that makes it (for the failure report)."""

    def __init__(self, op, path=(), value=None):
        self.op, self.path, self.value = op, tuple(path), value

    def __repr__(self):
        return f"Edit({self.op!r}, {list(self.path)!r}" + (f", {self.value!r})" if self.op not in ("delete", "reverse") else ")")

    def apply(self, cert):
        """The certificate with this edit made (in place); an edit whose path an earlier edit removed is a no-op."""
        try:
            return self._apply(cert)
        except (KeyError, IndexError, TypeError, AttributeError):
            return cert

    def _apply(self, cert):
        if self.op == "rename_station":
            return rename_station(cert, *self.value)
        if not self.path:
            return cert
        *head, last = self.path
        node = cert
        for k in head:
            if self.op == "set" and isinstance(node, dict) and not isinstance(node.get(k), (dict, list)):
                node[k] = {}
            node = node[k]
        if self.op == "set":
            if isinstance(node, list) and last >= len(node):
                node.append(copy.deepcopy(self.value))
            else:
                node[last] = copy.deepcopy(self.value)
        elif self.op == "delete":
            del node[last]
        elif self.op == "rename_key":
            items = list(node.items())
            node.clear()
            node.update((self.value if k == last else k, v) for k, v in items)
        elif self.op == "reverse":
            target = node[last]
            if isinstance(target, list):
                target.reverse()
            else:
                items = list(target.items())[::-1]
                target.clear()
                target.update(items)
        return cert


def mutate(cert, edits):
    out = copy.deepcopy(cert)
    for e in edits:
        out = e.apply(out)
    return ind.reseal(out)


def paths(node, prefix=()):
    """Every (path, value) of a JSON tree."""
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, (*prefix, i))


def _is_rational(v):
    if not isinstance(v, str):
        return False
    try:
        Fraction(v)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def _ids(net):
    return [s for s, _ in net.servers] if isinstance(net, certify.ForkJoinNetwork) else list(net.station_ids)


def _sub_ids(text, f):
    """Apply f to each station-id token of a coefficient name, set key or piece label (level digits kept)."""
    import re

    if text.startswith("T[") and "|" in text:
        l, rest = text[2:].split("|", 1)
        return f"T[{f(l)}|{rest}"
    if text.startswith("V[") or text.startswith("Q[") or text.startswith("n[") or text == "delta":
        return text  # quartic names carry exponents and region numbers, no ids
    return re.sub(r"[^\[\],|<>=/;]+", lambda m: f(m.group(0)), text)


def rename_station(cert, old, new):
    """Rename station ``old`` to ``new`` in every place a certificate names stations (``new`` may be another id: a swap)."""

    def f(s):
        return new if s == old else (old if s == new else s)

    out = copy.deepcopy(cert)
    for key in ("coefficients", "weights"):
        if isinstance(out.get(key), dict):
            out[key] = {_sub_ids(k, f): v for k, v in out[key].items()}
    m = out.get("multipliers")
    if isinstance(m, dict):
        if isinstance(m.get("stations"), dict):
            m["stations"] = {f(k): v for k, v in m["stations"].items()}
        if isinstance(m.get("sets"), dict):
            m["sets"] = {",".join(f(s) for s in k.split(",")): v for k, v in m["sets"].items()}
    for holder, key in ((out.get("options"), "fast"), (out.get("options"), "multipliers"), (out.get("table"), "fast"),
                        (out.get("claims"), "overloaded"), (out, "capped")):
        if isinstance(holder, dict) and isinstance(holder.get(key), list):
            holder[key] = [f(s) if isinstance(s, str) else s for s in holder[key]]
    if isinstance(out.get("classes"), list):
        out["classes"] = [[f(s) for s in c] if isinstance(c, list) else c for c in out["classes"]]
    return out


def near_values(v):
    """Replacements for a rational coefficient: nearby rationals, 0, negated, huge, tiny, and junk."""
    x = Fraction(v) if _is_rational(v) else Fraction(1)
    q = lambda y: str(y)  # noqa: E731 - Fraction's str is p/q
    return st.one_of(
        st.sampled_from([q(x + Fraction(1, 2**20)), q(x - Fraction(1, 2**20)), q(x * Fraction(1025, 1024)),
                         q(x * Fraction(1023, 1024)), "0", q(-x), q(2 * x), q(x / 2), str(10**30), "-" + str(10**30),
                         "1/" + str(10**30), q(x + 1), q(x - 1)]),
        st.fractions(min_value=-64, max_value=64, max_denominator=2**12).map(q),
        st.sampled_from([float(x), int(x), True, None, "abc", "1/0", "", [q(x)], {"v": q(x)}, "NaN", "1e3"]),
    )


K_VALUES = st.one_of(
    st.integers(-3, 40),
    st.sampled_from([10**7, 10**12, 2**63, -(10**7)]),
    st.sampled_from([6.9, 6.0, 1.5, 0.0, 1e308]),
    st.sampled_from(["6", "six", "", "1/2"]),
    st.booleans(),
    st.sampled_from([None, [6], {"K": 6}]),
)


def id_lists(ids, current):
    """Replacements for a list of station ids: duplicates, unknown ids, reorderings, subsets, junk."""
    cur = [s for s in current if isinstance(s, str)] if isinstance(current, list) else []
    pick = st.sampled_from(ids)
    return st.one_of(
        st.lists(pick, min_size=0, max_size=len(ids) + 2),
        st.lists(st.sampled_from([*ids, "9", "0", "", "1 "]), min_size=1, max_size=4),
        st.permutations(ids).map(list),
        st.sampled_from([cur[::-1], cur + cur[:1], cur[:1] * 2, cur[1:], [], None, ",".join(cur), [1, 2], [[s] for s in cur]]),
    )


CLASSES = ["coefficient", "options", "claims", "ids", "order", "kind", "semantics", "fields", "combo"]
OPTION_PATHS = [("options", "K"), ("options", "fast"), ("options", "multipliers"), ("table", "K"), ("table", "fast"),
                ("K",), ("classes",), ("capped",), ("lyapunov",)]


def edits_for(cls, net, cert):
    """A strategy of edit lists of one mutation class for this certificate."""
    ids = _ids(net)
    allp = [(p, v) for p, v in paths(cert) if p and p[0] not in ("digest", "format")]
    if cls == "coefficient":
        cands = [(p, v) for p, v in allp if p[0] in ("coefficients", "weights", "multipliers", "table") and _is_rational(v)]
        if not cands:
            return edits_for("fields", net, cert)
        return st.sampled_from(cands).flatmap(lambda pv: near_values(pv[1]).map(lambda nv: [Edit("set", pv[0], nv)]))
    if cls == "options":
        present = [p for p in OPTION_PATHS if _get(cert, p) is not _MISSING]
        addable = [("options", "K"), ("options", "fast")] + ([("K",)] if str(cert["kind"]).startswith("fork-join") else [])
        return st.sampled_from(present + addable).flatmap(lambda p: _option_values(p, ids, _get(cert, p)).map(
            lambda v: [Edit("set", p, v)]))
    if cls == "claims":
        cands = [(p, v) for p, v in allp if p[0] == "claims" and len(p) > 1]
        return st.sampled_from(cands).flatmap(lambda pv: st.one_of(
            near_values(pv[1]) if _is_rational(pv[1]) else st.sampled_from([0, 1, -1, 10**9, None, "x", [], {}]),
            st.integers(-2, 10**6),
        ).map(lambda nv: [Edit("set", pv[0], nv)]) | st.just([Edit("delete", pv[0])]))
    if cls == "ids":
        return st.tuples(st.sampled_from(ids), st.sampled_from([*ids, "9", "x", "01", ""])).filter(
            lambda t: t[0] != t[1]).map(lambda t: [Edit("rename_station", (), t)])
    if cls == "order":
        lists = [p for p, v in allp if isinstance(v, list) and len(v) >= 2]
        maps = [p for p, v in allp if isinstance(v, dict) and len(v) >= 2]
        dups = [(p, v) for p, v in allp if isinstance(v, list) and v]
        return st.one_of(
            *([st.sampled_from(lists).map(lambda p: [Edit("reverse", p)])] if lists else []),
            *([st.sampled_from(maps).map(lambda p: [Edit("reverse", p)])] if maps else []),
            *([st.sampled_from(dups).map(lambda pv: [Edit("set", (*pv[0], len(pv[1])), pv[1][0])])] if dups else []),
            *([st.sampled_from(dups).map(lambda pv: [Edit("delete", (*pv[0], 0))])] if dups else []),
            st.just([Edit("reverse", ("claims",))]),
        )
    if cls == "kind":
        kinds = ["foster", "growth", "static-split", "fluid", "fluid-flow", "fork-join-foster", "fork-join-capacity",
                 "fork-join-independent", "overflow-foster", "overflow-growth", "separable-foster", "separable-growth",
                 "sink-growth", "sink-drain", "Foster", "", None]
        templates = ["quadratic", "table", "piecewise", "quartic", "linear", "Table", None]
        return st.one_of(
            st.sampled_from(kinds).map(lambda k: [Edit("set", ("kind",), k)]),
            st.sampled_from(templates).map(lambda t: [Edit("set", ("template",), t)]),
            st.tuples(st.sampled_from(kinds), st.sampled_from(templates)).map(
                lambda kt: [Edit("set", ("kind",), kt[0]), Edit("set", ("template",), kt[1])]),
        )
    if cls == "semantics":
        stmt = cert["statement"]
        sems = ["general", "markovian", "", None, "General"]
        stmts = ["stable for every service distribution", stmt + " ", stmt.upper(), "", None,
                 "positive recurrent for every i.i.d. service law (Dai 1995)"]
        return st.one_of(
            st.sampled_from(sems).map(lambda s: [Edit("set", ("semantics",), s)]),
            st.sampled_from(stmts).map(lambda s: [Edit("set", ("statement",), s)]),
            st.tuples(st.sampled_from(sems), st.sampled_from(stmts)).map(
                lambda t: [Edit("set", ("semantics",), t[0]), Edit("set", ("statement",), t[1])]),
            st.sampled_from(["semantics", "statement"]).map(lambda k: [Edit("delete", (k,))]),
        )
    if cls == "fields":
        dicts = [p for p, v in allp if isinstance(v, dict)] + [()]
        keys = [p for p, _ in allp if isinstance(p[-1], str)]
        junk = st.sampled_from(["x", 0, 1, None, [], {}, "1/2", True, 10**7])
        names = st.sampled_from(["x-note", "extra", "K", "fast", "multipliers", "table", "template", "phase_expansion",
                                 "delta", "norm", "1", "P[1,1]", "T[1|0,0]", "symmetry", "inflow_depth"])
        return st.one_of(
            st.tuples(st.sampled_from(dicts), names, junk).map(lambda t: [Edit("set", (*t[0], t[1]), t[2])]),
            st.sampled_from(keys).map(lambda p: [Edit("delete", p)]),
            st.sampled_from(keys).map(lambda p: [Edit("rename_key", p, str(p[-1]) + " ")]),
        )
    assert cls == "combo"
    parts = [edits_for(c, net, cert) for c in CLASSES[:-1]]
    return st.lists(st.one_of(*parts), min_size=2, max_size=3).map(lambda ls: [e for es in ls for e in es])


_MISSING = object()


def _get(cert, path):
    node = cert
    for k in path:
        if not isinstance(node, dict) or k not in node:
            return _MISSING
        node = node[k]
    return node


def _option_values(path, ids, current):
    if path[-1] == "K":
        return K_VALUES
    if path[-1] == "lyapunov":
        return st.sampled_from(["sum_i Q_i^4", "", None, "N"])
    if path[-1] == "classes":
        return st.one_of(id_lists(ids, ids).map(lambda ls: [ls] if isinstance(ls, list) else ls),
                         st.sampled_from([[[s] for s in ids], [ids[:1], ids[1:]], [ids, ids[:1]], []]))
    return id_lists(ids, current if current is not _MISSING else [])


# ---------------------------------------------------------------- the tests


def test_originals_are_valid_and_independently_confirmed():
    """Every real certificate verifies, and the independent evaluation confirms it (so it can confirm at all)."""
    for name in CASES:
        net, cert = case(name)
        assert certify.verify(net, cert).ok, name
        assert confirm(name, cert, 120) is None, name


def test_independent_evaluation_refutes_wrong_certificates():
    """The independent evaluation is not vacuous: negated Foster/growth coefficients and wrong claims of every kind are refuted."""
    for name in ("quadratic", "table", "table-phases", "piecewise", "quartic", "growth", "growth-table", "fj-foster"):
        _, cert = case(name)
        bad = copy.deepcopy(cert)
        if name == "fj-foster":
            bad["claims"]["delta"] = str(Fraction(bad["claims"]["delta"]) * 2)
        for key in ("coefficients", "weights"):
            for k, v in bad.get(key, {}).items():
                bad[key][k] = str(-Fraction(v))
        assert confirm(name, bad, 120) is not None, name
    _, cert = case("static-split")
    bad = copy.deepcopy(cert)
    bad["claims"]["dual_value"] = str(Fraction(bad["claims"]["dual_value"]) / 2)
    assert confirm("static-split", bad, 120) is not None
    for name in ("fluid-linear", "fluid-quadratic"):
        _, cert = case(name)
        bad = copy.deepcopy(cert)
        bad["claims"]["delta"] = str(Fraction(bad["claims"]["delta"]) * 4)
        assert confirm(name, bad, 120) is not None, name
    for name, edit in (
        ("closed-set", lambda c: c.update(stations=["1", "2"])),
        ("finite-state", lambda c: c["claims"].update(states=c["claims"]["states"] + 1)),
        ("theorem", lambda c: c["claims"].update(verdict="unstable")),
        ("overflow-foster", lambda c: c["claims"].update(delta=str(Fraction(c["claims"]["delta"]) * 2))),
        ("overflow-growth", lambda c: c.update(table={k: "0" for k in c["table"]})),
        ("static-split-lossy", lambda c: c["multipliers"]["sets"].update({"1": "-1"})),
        ("separable-foster", lambda c: c["claims"].update(delta=str(Fraction(c["claims"]["delta"]) * 10))),
        ("separable-foster", lambda c: c.update(P=[[a, b, str(-Fraction(v))] for a, b, v in c["P"]])),
        ("separable-growth", lambda c: c.update(weights={k: "0" for k in c["weights"]},
                                                tables=[{k: "0" for k in t} for t in c["tables"]])),
        ("separable-levels", lambda c: c["claims"].update(delta=str(Fraction(c["claims"]["delta"]) * 10))),
        ("separable-levels", lambda c: c.update(P=[[a, b, str(-Fraction(v))] for a, b, v in c["P"]])),
        ("separable-levels-growth", lambda c: c.update(weights={k: "0" for k in c["weights"]},
                                                       tables=[{k: "0" for k in t} for t in c["tables"]])),
        # the sink's own table made blind to its phase (one value everywhere): x'Px drifts up where no service ends
        ("separable-sink-phases", lambda c: c["tables"][2].update(s={k: "1000" for k in c["tables"][2]["s"]})),
        ("separable-beyond-phases", lambda c: c["claims"].update(delta=str(Fraction(c["claims"]["delta"]) * 10))),
        ("separable-beyond-phases-growth", lambda c: c.update(weights={k: "0" for k in c["weights"]},
                                                              tables=[{k: "0" for k in t} for t in c["tables"]])),
        ("sink-growth", lambda c: c.update(rate=str(Fraction(c["rate"]) + Fraction(1, 10)))),
        ("sink-set", lambda c: c["subsets"][0].update(rate=str(Fraction(c["subsets"][0]["rate"]) + Fraction(1, 10)))),
        ("sink-set", lambda c: c.pop("subsets")),
        ("sink-set", lambda c: c.update(sink=[c["sink"][0], c["sink"][1], "a0"])),
        ("sink-drain", lambda c: c.update(rate=str(Fraction(c["rate"]) - Fraction(1, 10)))),
        ("sink-drain", lambda c: c["reduced_lyapunov"].update({"P[a0,b0]": "-1"})),
        ("sink-drain-ties", lambda c: c.update(rate=str(Fraction(c["rate"]) - Fraction(1, 100)))),
        ("sink-drain-set", lambda c: c["subsets"][0].update(rate=str(Fraction(c["subsets"][0]["rate"]) - Fraction(1, 10)))),
        ("sink-drain-set", lambda c: c.pop("subsets")),
        ("sink-drain-set", lambda c: c["subsets"][0]["weights"].update(x="-1")),
        ("sink-drain-set-box", lambda c: c["subsets"][0].update(rate=str(Fraction(c["subsets"][0]["rate"]) - Fraction(1, 10)))),
        ("sink-drain-set-box", lambda c: c["subsets"][0]["weights"].update(x="-1")),
        ("sink-set-face", lambda c: c["subsets"][-1].update(rate=str(Fraction(c["subsets"][-1]["rate"]) + Fraction(1, 10)))),
        ("sink-set-face", lambda c: c.update(sink=c["sink"][:3])),
        ("sink-drain-face", lambda c: c["subsets"][-1].update(rate=str(Fraction(c["subsets"][-1]["rate"]) - Fraction(1, 10)))),
        ("sink-drain-face", lambda c: c.update(rate=str(Fraction(c["rate"]) - Fraction(1, 100)))),
    ):
        _, cert = case(name)
        bad = copy.deepcopy(cert)
        edit(bad)
        assert confirm(name, bad, 120) is not None, name


def _raise(net, cert):
    raise KeyError("boom")


def _hang(net, cert):
    time.sleep(60)


def _explode(net, cert):
    return [0] * 10**10


def test_isolated_verify_reports_raises_hangs_and_memory():
    """verify_isolated answers for a valid certificate, and reports an exception, a hang and a memory blow-up."""
    net, cert = case("quadratic")
    assert ind.verify_isolated(net, cert)[:3] == ("ok", True, [])
    res = ind.verify_isolated(net, cert, fn=_raise)
    assert res[0] == "raised" and "KeyError: 'boom'" in res[1]
    t0 = time.perf_counter()
    assert ind.verify_isolated(net, cert, timeout=1, fn=_hang)[0] == "timeout"
    assert time.perf_counter() - t0 < 5
    res = ind.verify_isolated(net, cert, fn=_explode)
    assert res[0] == "raised" and "MemoryError" in res[1]


def _forger(budget):
    @settings(max_examples=budget, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
    @given(data=st.data())
    def run(name, cls, data):
        net, cert = case(name)
        edits = data.draw(edits_for(cls, net, cert), label="edits")
        judge(name, mutate(cert, edits), edits)

    return run


_default = _forger(6)
_slow = _forger(60)
#: Cases whose verify takes about a second (past the phase-vector limit): the slow run only, with a smaller budget.
HEAVY = {"separable-beyond-phases": _forger(12)}


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("name", [n for n in CASES if n not in HEAVY])
def test_forger(name, cls):
    """A resealed mutation of a real certificate is refused, or independently confirmed (fixed example budget)."""
    _default(name, cls)


@pytest.mark.slow
@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("name", list(ALL_CASES))
def test_forger_slow(name, cls):
    """The forger with a ten times larger example budget (two past the phase-vector limit), and the slower cases."""
    HEAVY.get(name, _slow)(name, cls)
