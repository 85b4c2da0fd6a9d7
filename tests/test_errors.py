"""The exception tree: every refusal is a CertifyError (and a ValueError), one line on the command line."""

import json

import pytest

import certify
from certify.cli import main
from certify.core.errors import (
    CertificateError,
    CertifyError,
    NetworkError,
    NetworkNotSupported,
    NotSupported,
    SolverError,
)
from certify.markov.laws import NotPhaseType
from certify.markov.phases import markov_chain
from certify.search import solvers
from certify.search.solvers import SolverNotInstalled

MM1 = {"format": "jsq-network/1", "name": "mm1", "stations": {"1": {"mu": 2}}, "streams": [{"choice": ["1"], "rate": 1}]}
LOGNORMAL = {"format": "jsq-network/1", "name": "ln", "stations": {"1": {"mu": 2, "service": {"dist": "lognormal", "scv": 2}}},
             "streams": [{"choice": ["1"], "rate": 1}]}
FORK_JOIN = {"format": "fork-join-redundancy/1", "name": "fj", "n": 2, "k": 1, "rate": 0.5,
             "servers": {"1": {"mu": 0.6}, "2": {"mu": 0.2}}}


def write(tmp_path, name, doc):
    """``doc`` written as JSON to ``tmp_path / name``; returns the path."""
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def cli(capsys, *args):
    """Run the CLI in this process: (exit status, the lines of stderr)."""
    code = main([str(a) for a in args])
    return code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("cls", [NetworkError, CertificateError, NotSupported, SolverError, NetworkNotSupported,
                                 NotPhaseType, SolverNotInstalled])
def test_every_class_is_a_certify_error_and_a_value_error(cls):
    """Each class of the tree is a CertifyError and, so that `except ValueError` keeps working, a ValueError."""
    assert issubclass(cls, CertifyError) and issubclass(cls, ValueError)


def test_the_tree_is_exported():
    """The public API exports the base class and its four branches."""
    assert (certify.CertifyError, certify.NetworkError, certify.CertificateError, certify.NotSupported,
            certify.SolverError) == (CertifyError, NetworkError, CertificateError, NotSupported, SolverError)


def test_bad_network_file_is_a_network_error(tmp_path):
    """A network file with a negative rate is a NetworkError naming the file, the field and the rule."""
    path = write(tmp_path, "net.json", {**MM1, "streams": [{"choice": ["1"], "rate": -1}]})
    with pytest.raises(NetworkError, match=r"net\.json: streams\[0\]\.rate: -1 must be > 0$"):
        certify.load(path)


def test_malformed_certificate_field_is_a_certificate_error():
    """A certificate rational that is not in lowest terms is a CertificateError naming the field, value and rule."""
    from certify.core.numbers import unq

    with pytest.raises(CertificateError, match=r"^coefficients\.w\[1\]: '6/8' is not in canonical form \(write '3/4'\)$"):
        unq("6/8", "coefficients.w[1]")


def test_certificate_file_that_is_not_json_is_a_certificate_error(tmp_path):
    """load_certificate refuses a file that is not JSON with a CertificateError naming the file."""
    path = write(tmp_path, "bad.cert.json", "{not json")
    with pytest.raises(CertificateError, match=r"bad\.cert\.json: not JSON \(line 1, column 2\)") as info:
        certify.load_certificate(path)
    assert info.value.file == str(path) and info.value.field is None


def test_certificate_file_with_a_key_given_twice_is_refused(tmp_path, capsys):
    """A certificate file with a key given twice in one object: one line naming the file and the key, exit 2."""
    net = write(tmp_path, "net.json", MM1)
    cert = write(tmp_path, "twice.cert.json", '{"format": "certify-certificate/1", "table": {"0": "0", "0": "1"}}')
    code, err = cli(capsys, "verify", net, cert)
    assert code == 2 and err == [f'certify: {cert}: not a certificate: the key "0" is given twice in one object']


def test_verify_turns_a_certificate_error_into_a_failure():
    """verify never raises on a malformed certificate field: the CertificateError becomes a failure line."""
    net = certify.from_dict(MM1)
    cert = certify.prove(net, templates=["quadratic"], sim_budget=0).certificate
    res = certify.verify(net, {**cert, "coefficients": {"P[1,1]": "2/2"}})
    assert "malformed certificate: coefficients.P[1,1]: '2/2' is not in canonical form (write '1')" in res.failures


def test_law_without_phases_is_not_supported():
    """A lognormal law given to the Markov chain builder is NotSupported (as NotPhaseType), naming the law."""
    with pytest.raises(NotSupported, match=r"lognormal\(scv=2\) has no finite phase-type representation"):
        markov_chain(certify.from_dict(LOGNORMAL))


def test_fork_join_file_given_to_stationary_is_not_supported():
    """A fork-join network given to the stationary analysis is NotSupported, and still a NetworkError as before."""
    from certify.stationary import stationary

    with pytest.raises(NotSupported, match="fork-join") as info:
        stationary(certify.from_dict(FORK_JOIN))
    assert isinstance(info.value, NetworkError)


def test_unknown_solver_is_a_solver_error():
    """prove with a solver that is not installed is a SolverError listing the installed solvers."""
    with pytest.raises(SolverError, match=r"^'NO-SUCH-SOLVER' is not an installed solver \(installed: .+\)$"):
        certify.prove(certify.from_dict(MM1), solver="NO-SUCH-SOLVER")


def test_cli_network_error_is_one_line_exit_2(tmp_path, capsys):
    """A bad network file: `certify: FILE: FIELD: rule` on one line, exit 2."""
    path = write(tmp_path, "net.json", {**MM1, "streams": [{"choice": ["1"], "rate": -1}]})
    code, err = cli(capsys, "regions", path)
    assert code == 2 and len(err) == 1 and err[0].startswith(f"certify: {path}: streams[0].rate: ")


def test_cli_certificate_error_is_one_line_exit_2(tmp_path, capsys):
    """A certificate file that is not JSON: `certify: FILE: not JSON (...)` on one line, exit 2."""
    net = write(tmp_path, "net.json", MM1)
    cert = write(tmp_path, "bad.cert.json", "{not json")
    code, err = cli(capsys, "verify", net, cert)
    assert code == 2 and err == [f"certify: {cert}: not JSON (line 1, column 2): Expecting property name enclosed in "
                                 "double quotes"]


def test_cli_not_supported_is_one_line_exit_2(tmp_path, capsys):
    """A fork-join file given to `certify regions`: one line naming the file and the commands that take it, exit 2."""
    path = write(tmp_path, "fj.json", FORK_JOIN)
    code, err = cli(capsys, "regions", path)
    assert code == 2 and err == [f"certify: {path}: format: fork-join-redundancy/1 networks are supported by "
                                 "`certify prove` and `certify verify` only, not by `certify regions`"]


def test_cli_solver_error_is_one_line_exit_2(tmp_path, capsys, monkeypatch):
    """With no solver installed, `certify prove` prints the SolverError on one line and exits 2."""
    monkeypatch.setattr(solvers, "installed_solvers", lambda: [])
    code, err = cli(capsys, "prove", write(tmp_path, "net.json", MM1), "--sim-budget", "0")
    assert code == 2 and err == ["certify: no cvxpy solver is installed (install clarabel, highspy or scs)"]
