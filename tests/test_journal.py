"""``paohuzi-eval --journal``: an evaluation run in pieces gives the numbers of one uninterrupted
run, and a journal of another evaluation (or not a journal) is refused by name."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paohuzi_env.game.rules import get_rules
from paohuzi_training.eval import journal
from paohuzi_training.eval.evaluate import evaluate, main

KW = dict(seed=5, workers=1, progress=False)


def _same(a: dict, b: dict) -> None:
    for r in (a, b):
        r.pop("wall_seconds"), r.pop("journal", None)
    assert a == b


def test_a_journal_changes_no_number(tmp_path):
    plain = evaluate("greedy", "random", deals=6, **KW)
    kept = evaluate("greedy", "random", deals=6, journal=tmp_path / "j.jsonl", **KW)
    assert kept["journal"]["deals_already_there"] == 0
    lines = (tmp_path / "j.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["format"] == journal.FORMAT
    assert len(lines) == 1 + 6 * 3  # the header, then every game of every deal
    _same(plain, kept)


def test_pieces_resume_and_extend_to_the_uninterrupted_numbers(tmp_path):
    path = tmp_path / "j.jsonl"
    whole = evaluate("greedy", "random", deals=8, **KW)
    evaluate("greedy", "random", deals=3, journal=path, **KW)  # the first piece
    # a run killed while it wrote: half a line at the end, which the next piece drops and redoes
    with open(path, "a", encoding="utf-8") as f:
        f.write('[3, 0, 6, tr')
    second = evaluate("greedy", "random", deals=8, journal=path, workers=2, seed=5,
                      progress=False)
    assert second["journal"]["deals_already_there"] == 3
    assert path.read_text(encoding="utf-8").endswith("\n")
    _same(whole, second)
    # everything there: nothing is played, a smaller --deals summarises the first deals
    third = evaluate("greedy", "random", deals=8, journal=path, **KW)
    assert third["journal"]["deals_already_there"] == 8
    first4 = evaluate("greedy", "random", deals=4, journal=path, **KW)
    _same(evaluate("greedy", "random", deals=4, **KW), first4)


def test_a_journal_of_another_evaluation_is_refused(tmp_path):
    path = tmp_path / "j.jsonl"
    evaluate("greedy", "random", deals=2, journal=path, **KW)
    with pytest.raises(ValueError, match=r"another evaluation \(seed: journal 5, this run 6"):
        evaluate("greedy", "random", deals=2, journal=path, seed=6, workers=1, progress=False)
    with pytest.raises(ValueError, match="another evaluation .*candidate"):
        evaluate("random", "random", deals=2, journal=path, **KW)
    with pytest.raises(ValueError, match="another evaluation .*rules"):
        evaluate("greedy", "random", deals=2, journal=path, rules="classic", **KW)


def test_a_changed_network_file_is_another_evaluation(tmp_path):
    spec_file = tmp_path / "net.pt"
    spec_file.write_bytes(b"one")
    head = journal.header(f"checkpoint:{spec_file}", ["expert", "expert"], 1,
                          _rules(), "none", None)
    assert list(head["files_sha256"]) == ["candidate"]
    journal.Journal.open(tmp_path / "j.jsonl", head).close()
    spec_file.write_bytes(b"two")
    head2 = journal.header(f"checkpoint:{spec_file}", ["expert", "expert"], 1, _rules(), "none",
                           None)
    with pytest.raises(ValueError, match="the candidate file: journal SHA-256 [0-9a-f]{12}…, this run"):
        journal.Journal.open(tmp_path / "j.jsonl", head2)


def _rules():
    return get_rules("huaihua")


def test_bad_journal_files_are_named_and_left_as_they_were(tmp_path):
    head = journal.header("greedy", ["random", "random"], 5, _rules(), "none", None)
    results = tmp_path / "results.json"  # what --json writes: no newline at the end
    results.write_text('{\n  "mean_points": 0.5\n}', encoding="utf-8")
    one_line = tmp_path / "one.txt"
    one_line.write_text("my notes", encoding="utf-8")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(256)))
    for f in (results, one_line, binary):
        before = f.read_bytes()
        with pytest.raises(ValueError, match="is not an evaluation journal .*left as it is"):
            journal.Journal.open(f, head)
        assert f.read_bytes() == before  # a user's file is never written to
    with pytest.raises(ValueError, match="is a directory"):
        journal.Journal.open(tmp_path, head)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(head) + "\n[0, 0, 1]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2: a row is a list of 8 values"):
        journal.Journal.open(bad, head)
    clash = tmp_path / "clash.jsonl"
    clash.write_text(json.dumps(head) + "\n[0, 0, 1, false, true, true, [1, 0, -1], 0.0]\n"
                     "[0, 0, 2, false, true, true, [2, 0, -2], 0.0]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 3: deal 0 rotation 0 is written twice with "
                                         "different results"):
        journal.Journal.open(clash, head)


def test_part_deals_and_games_written_twice_are_read_as_whole_deals(tmp_path):
    path = tmp_path / "j.jsonl"
    evaluate("greedy", "random", deals=3, journal=path, **KW)
    lines = path.read_text(encoding="utf-8").splitlines()
    # deal 1 twice (two runs on one journal), deal 2 without its last rotation (a kill)
    path.write_text("\n".join(lines[:1 + 3 * 2] + lines[4:7] + lines[7:9]) + "\n",
                    encoding="utf-8")
    with journal.Journal.open(path, journal.header("greedy", ["random", "random"], 5, _rules(),
                                                   "none", None)) as book:
        assert [(r.deal, r.rotation) for r in book.rows] == [
            (d, r) for d in (0, 1) for r in range(3)]
    again = evaluate("greedy", "random", deals=3, journal=path, **KW)
    assert again["journal"]["deals_already_there"] == 2
    _same(evaluate("greedy", "random", deals=3, **KW), again)


def test_file_specs_compare_by_content_not_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("net.pt").write_bytes(b"one")
    a = journal.header("checkpoint:net.pt", ["expert", "expert"], 1, _rules(), "none", None)
    journal.Journal.open("j.jsonl", a).close()
    same = journal.header("checkpoint:./net.pt", ["expert", "expert"], 1, _rules(), "none",
                          None)
    journal.Journal.open("j.jsonl", same).close()  # the same file by another name
    with pytest.raises(ValueError, match="rules.name: journal 'huaihua', this run 'classic'"):
        journal.Journal.open("j.jsonl", journal.header("checkpoint:net.pt", ["expert", "expert"],
                                                       1, get_rules("classic"), "none", None))


def test_cli_journal(tmp_path, capsys):
    path = tmp_path / "j.jsonl"
    args = ["greedy", "--vs", "random", "--deals", "2", "--seed", "5", "--workers", "1",
            "--no-progress", "--journal", str(path)]
    assert main(args + ["--json", str(tmp_path / "a.json")]) == 0
    assert main(args + ["--seed", "6"]) == 2
    assert "journal of another evaluation" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--league", "greedy", "random", "--journal", str(path)])
    assert "not with --league" in capsys.readouterr().err
    out = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert out["journal"] == {"path": str(path), "deals_already_there": 0, "deals_in_journal": 2}
    with pytest.raises(SystemExit):
        main(args + ["--json", str(path)])
    assert "name the same file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["greedy", "--vs", "random", "greedy", "expert", "--deals", "1"])
    assert "one opponent spec (both seats) or two, got 3" in capsys.readouterr().err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_keeps_its_deals_and_resumes(tmp_path, sig):
    """Ctrl-C (SIGINT) or `kill` (SIGTERM) mid-run: exit 130 with a message, the finished deals
    on disk; the same command with a given --deals plays only the deals the journal lacks (here
    on the compiled core, which plays the same games) and prints the uninterrupted run's numbers.

    The interrupted run asks for a million deals, far more than it can play before the signal
    (the Python engine plays some hundreds a minute), so the signal always finds it running,
    however loaded the machine: it is sent once the journal holds its first batch."""
    path = tmp_path / "j.jsonl"
    base = [sys.executable, "-m", "paohuzi_training.eval.evaluate", "expert", "--vs", "greedy",
            "--seed", "5", "--workers", "1", "--no-progress", "--journal", str(path)]
    # SIG_DFL first: a pytest-xdist worker ignores SIGINT, a child inherits that, and Python then
    # never turns SIGINT into KeyboardInterrupt (the interrupted run would play on)
    proc = subprocess.Popen(base + ["--deals", "1000000", "--backend", "python"],
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists() and len(path.read_text(encoding="utf-8").splitlines()) > 1:
            break
        time.sleep(0.02)
    assert proc.poll() is None, f"the run ended before it could be interrupted: {proc.stderr.read()}"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted; the finished deals are in" in err
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert (lines - 1) % 3 == 0  # whole deals only: a batch is written whole or not at all
    kept = (lines - 1) // 3
    assert kept > 0
    deals = kept + 20  # the deals it kept and 20 more
    subprocess.run(base + ["--deals", str(deals), "--json", str(tmp_path / "r.json")],
                   capture_output=True, text=True, timeout=300, check=True)
    res = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert res["journal"]["deals_already_there"] == kept
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1 + deals * 3  # none played twice
    whole = evaluate("expert", "greedy", deals=deals, seed=5, workers=1, progress=False)
    whole.pop("rows")
    _same(whole, res)


def test_a_resumed_run_checks_that_it_plays_the_journal_s_games(tmp_path):
    """A journal whose games this code does not play (other code, or a file the header does not
    hash) is refused before a deal is added: its first deal is played again and compared."""
    path = tmp_path / "j.jsonl"
    evaluate("greedy", "random", deals=2, journal=path, **KW)
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[1])
    row[2] += 3  # deal 0 rotation 0 scored differently
    lines[1] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # nothing to add: the journal is read as it is (+3 in one of deal 0's three games: +1 for the
    # deal, +0.5 over two deals)
    read = evaluate("greedy", "random", deals=2, journal=path, **KW)["mean_points"]
    assert read == pytest.approx(evaluate("greedy", "random", deals=2, **KW)["mean_points"] + 0.5)
    with pytest.raises(ValueError, match="deal 0 of the journal .* played again, comes out "
                                         "differently"):
        evaluate("greedy", "random", deals=3, journal=path, **KW)  # one deal to add


def test_one_run_at_a_time_and_a_bare_header(tmp_path):
    path = tmp_path / "j.jsonl"
    head = journal.header("greedy", ["random", "random"], 5, _rules(), "none", None)
    with journal.Journal.open(path, head):
        with pytest.raises(ValueError, match="is in use by another run"):
            evaluate("greedy", "random", deals=1, journal=path, **KW)
    path.write_text(json.dumps(head), encoding="utf-8")  # the header without its newline
    first = evaluate("greedy", "random", deals=2, journal=path, **KW)
    assert first["journal"]["deals_already_there"] == 0
    assert evaluate("greedy", "random", deals=2, journal=path, **KW)["journal"][
        "deals_already_there"] == 2


def test_files_inside_other_specs_are_hashed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("g.pt").write_bytes(b"guide")
    Path("g.safetensors").write_bytes(b"compiled guide")
    head = journal.header("search:guide=checkpoint:g.pt,samples=8", ["expert", "network:g.pt"],
                          1, _rules(), "none", None)
    assert sorted(head["files_sha256"]) == ["candidate guide", "candidate guide.safetensors",
                                            "opponent 2"]


def test_rows_are_read_strictly(tmp_path):
    head = journal.header("greedy", ["random", "random"], 5, _rules(), "none", None)
    for row, what in [("[0.7, 0, 1, false, true, true, [1, 0, -1], 0.0]", "deal must be a whole"),
                      ('[0, 0, 1, "false", true, true, [1, 0, -1], 0.0]', "won must be true or"),
                      ("[0, 0, 1, false, true, true, [1, 0, -1, 4], 0.0]", "scores must be a list"),
                      ("[0, 0, 1, false, true, true, [1, 0, -1], 1e400]", "control must be a fin"),
                      ("[0, 5, 1, false, true, true, [1, 0, -1], 0.0]", "a rotation 0, 1 or 2")]:
        path = tmp_path / "j.jsonl"
        path.write_text(json.dumps(head) + "\n" + row + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=what):
            journal.Journal.open(path, head)


def test_cli_path_errors_exit_2(tmp_path, capsys):
    args = ["greedy", "--vs", "random", "--deals", "1", "--workers", "1", "--no-progress"]
    assert main(args + ["--journal", str(tmp_path)]) == 2
    assert "is a directory or a special file" in capsys.readouterr().err
    assert main(args + ["--journal", str(tmp_path / ("x" * 300))]) == 2
    assert "paohuzi-eval: error:" in capsys.readouterr().err
