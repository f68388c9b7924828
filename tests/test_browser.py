"""The replay page and the served table in a real browser (headless Chromium via chromedriver).

These tests skip, saying why, where no browser can be had (``.ci/run`` installs Debian's
``chromium`` and ``chromium-driver`` where missing). Screenshots go to ``$PAOHUZI_SCREENSHOTS``
(a folder) when it is set, else to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from paohuzi_env.agents import make_agent
from paohuzi_env.apps.replay_html import write_replay
from paohuzi_env.game.engine import Game

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (test extra)")
pytest.importorskip("starlette", reason="the serve extra (starlette) is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the serve extra (uvicorn) is not installed")

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from paohuzi_env.apps.serve import create_app  # noqa: E402

WAIT_S = 20


def _browser_paths() -> tuple[str, str] | None:
    browser = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
                    if p), None)
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    return (browser, driver) if browser and driver else None


@pytest.fixture(scope="module")
def browser():
    paths = _browser_paths()
    if paths is None:
        pytest.skip("no headless browser here: install Debian's chromium and chromium-driver "
                    "(.ci/run does where apt-get works)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = paths[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,900", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    try:
        driver = webdriver.Chrome(service=Service(executable_path=paths[1]), options=opts)
    except WebDriverException as e:
        pytest.skip(f"chromium did not start: {str(e).splitlines()[0]}")
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    out = os.environ.get("PAOHUZI_SCREENSHOTS")
    path = Path(out) if out else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def server():
    """The app of ``paohuzi serve`` on a free port of 127.0.0.1, in a thread."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(("expert", "greedy")), host="127.0.0.1", port=port,
                            log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline:
            pytest.fail("the server did not start within 20 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


def _wait(driver, until, what: str):
    return WebDriverWait(driver, WAIT_S).until(until, message=f"waited {WAIT_S} s for {what}")


def _recorded_hand(seed: int) -> dict:
    g = Game("huaihua", seed=seed)
    bots = [make_agent(spec, seed=i) for i, spec in enumerate(("expert", "greedy", "random"))]
    while not g.done:
        s = g.current_player
        g.step(bots[s](g.view(s)))
    rec = g.record()
    rec["seats"] = ["expert", "greedy", "random"]
    # probabilities on the first decision, as a checkpoint agent's record carries them
    first = Game("huaihua", deck=rec["deck"], dealer=rec["dealer"]).legal_actions()
    rec["probs"] = [{str(a): 1 / len(first) for a in first}] + [None] * (len(rec["actions"]) - 1)
    return rec


def test_replay_page_steps_through_a_whole_hand(browser, shots, tmp_path):
    rec = _recorded_hand(11)
    page = write_replay(rec, tmp_path / "hand.html")
    browser.get(page.resolve().as_uri())
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg"), "the first picture")
    n = browser.execute_script("return window.replay.frames")
    assert n == len(rec["actions"]) + 1
    assert browser.find_element(By.ID, "pos").text == f"1 / {n}"
    # the first decision carries probabilities: one bar per legal action, the chosen one marked
    rows = browser.find_elements(By.CSS_SELECTOR, "#legal li")
    assert len(rows) == len(browser.execute_script(
        "return JSON.parse(document.getElementById('data').textContent).frames[0].legal"))
    assert "%" in rows[0].text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#legal li.chosen")) == 1
    browser.save_screenshot(str(shots / "replay-start.png"))
    body = browser.find_element(By.TAG_NAME, "body")
    for i in range(2, n + 1):  # forwards with the key, one decision at a time
        body.send_keys(Keys.ARROW_RIGHT)
        assert browser.find_element(By.ID, "pos").text == f"{i} / {n}"
    assert browser.find_element(By.ID, "next").get_attribute("disabled")
    assert "本局结束" in browser.find_element(By.ID, "who").text
    assert browser.find_element(By.ID, "result").text.strip()
    browser.save_screenshot(str(shots / "replay-end.png"))
    browser.find_element(By.ID, "prev").click()  # backwards with the button
    assert browser.find_element(By.ID, "pos").text == f"{n - 1} / {n}"
    body.send_keys(Keys.HOME)
    assert browser.find_element(By.ID, "pos").text == f"1 / {n}"

    def hand_kinds(seat: int) -> int:
        return len(browser.find_elements(
            By.CSS_SELECTOR, f'#board g.hand[data-seat="{seat}"] use[data-kind]'))

    # full information: every hand face up; seat 1's view: its own hand only
    assert browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("data-view") == "full"
    assert hand_kinds(0) == 21 - (0 if rec["dealer"] == 0 else 1) and hand_kinds(1) and hand_kinds(2)
    body.send_keys("1")
    assert browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("data-view") == "1"
    assert hand_kinds(1) > 0 and hand_kinds(0) == 0 and hand_kinds(2) == 0
    browser.find_element(By.CSS_SELECTOR, 'button.view[data-view="full"]').click()
    assert browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("data-view") == "full"


def _state(driver) -> dict:
    return driver.execute_script("return window.paohuzi.state()")


def test_play_a_whole_hand_by_clicking_and_illegal_actions_are_refused(browser, server, shots):
    browser.get(f"{server}/?seed=5")
    _wait(browser, lambda d: d.execute_script("return window.paohuzi && window.paohuzi.state()"),
          "the table")
    first = _state(browser)
    assert first["hand"] == 1 and first["your_turn"]
    # an illegal action (HU where it is not offered) is refused with a message; nothing changes
    illegal = next(a for a in (59, 58, 0, 1, 2) if a not in {x["action"] for x in first["legal"]})
    browser.execute_script(f"window.paohuzi.act({illegal})")
    _wait(browser, lambda d: "not legal" in d.find_element(By.ID, "message").text,
          "the refusal message")
    after = _state(browser)
    assert after["version"] == first["version"] and after["legal"] == first["legal"]
    browser.save_screenshot(str(shots / "table-refused.png"))
    # a stale action (an old version) is refused too
    status = browser.execute_async_script(
        "var done = arguments[0]; var s = window.paohuzi.state();"
        "fetch('/api/table/' + s.id + '/act', {method: 'POST', headers: {'Content-Type':"
        " 'application/json'}, body: JSON.stringify({action: s.legal[0].action,"
        " version: s.version + 7})}).then(function (r) { done(r.status); });")
    assert status == 409
    clicks = card_clicks = 0
    shot_mid = False
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline, "the hand took too long to play"
        s = _state(browser)
        if s["done"]:
            break
        version = s["version"]
        if s["decision"] == "discard" and card_clicks < 3:
            # a click on a card of your hand discards it
            cards = browser.find_elements(By.CSS_SELECTOR, '#board g.hand[data-seat="0"] use[data-seat-hand]')
            cards[-1].click()
            card_clicks += 1
        else:
            buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button.act")
            names = [b.text for b in buttons]
            # take a claim where one is offered (to see 吃/比 steps), else the last button
            pick = next((i for i, t in enumerate(names) if t.startswith(("吃", "碰", "比", "胡"))),
                        len(buttons) - 1)
            buttons[pick].click()
        clicks += 1
        _wait(browser, lambda d, v=version: _state(d)["version"] != v, "the table to answer")
        if not shot_mid and clicks >= 4 and not _state(browser)["done"]:
            browser.save_screenshot(str(shots / "table-mid-hand.png"))
            shot_mid = True
    assert card_clicks >= 1 or clicks >= 1
    result = browser.find_element(By.ID, "result").text
    assert ("胡" in result or "荒庄" in result) and "得分" in result
    totals = browser.find_element(By.ID, "totals").text
    assert "累计" in totals and sum(s["totals"]) == 0
    browser.save_screenshot(str(shots / "table-end.png"))
    # the replay of the hand just played
    link = browser.find_element(By.ID, "replay-link").get_attribute("href")
    browser.find_element(By.ID, "next-hand").click()
    _wait(browser, lambda d: _state(d)["hand"] == 2, "the next hand")
    browser.get(link)
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg"), "the replay page")
    frames = browser.execute_script("return window.replay.frames")
    assert frames == s["version"] + 1
    browser.find_element(By.ID, "last").click()
    assert "本局结束" in browser.find_element(By.ID, "who").text


def test_two_tabs_play_independent_tables(browser, server):
    browser.get(f"{server}/?seed=7")
    _wait(browser, lambda d: d.execute_script("return window.paohuzi && window.paohuzi.state()"),
          "the first tab's table")
    first = _state(browser)["id"]
    browser.switch_to.new_window("tab")
    try:
        browser.get(f"{server}/?seed=7")
        _wait(browser, lambda d: d.execute_script("return window.paohuzi && window.paohuzi.state()"),
              "the second tab's table")
        second = _state(browser)
        assert second["id"] != first
        v = second["version"]
        browser.find_elements(By.CSS_SELECTOR, "#actions button.act")[-1].click()
        _wait(browser, lambda d: _state(d)["version"] != v, "the second tab's move")
    finally:
        browser.close()
        browser.switch_to.window(browser.window_handles[0])
    # the first tab's table did not move
    again = json.loads(browser.execute_async_script(
        "var done = arguments[0]; fetch('/api/table/' + window.paohuzi.state().id)"
        ".then(function (r) { return r.text(); }).then(done);"))
    assert again["version"] == _state(browser)["version"]


SMALL_ANALYSER = "search:guide=none,prune=0,z=0,samples=8,playouts=128"


def _needs_core() -> None:
    from paohuzi_env import fast

    if not fast.available():
        pytest.skip("the review's analyser runs on the compiled core")


def test_review_page_shows_the_analysis_panel(browser, shots, tmp_path):
    _needs_core()
    from paohuzi_env.apps.review import review

    rec = _recorded_hand(11)
    rev = review(rec, 0, analyser=SMALL_ANALYSER)
    page = write_replay(rec, tmp_path / "review.html", review=rev, start_view="0")
    d = max(rev["decisions"], key=lambda x: (x["loss"], len(x["legal"])))  # the costliest
    browser.get(page.resolve().as_uri() + f"#step={d['step']}")
    _wait(browser, lambda dr: dr.find_elements(By.CSS_SELECTOR, "#board svg"), "the first picture")
    assert browser.find_element(By.ID, "pos").text.startswith(f"{d['step'] + 1} /")
    panel = browser.find_element(By.ID, "analysis")
    assert panel.is_displayed() and browser.find_element(By.ID, "review-summary").is_displayed()
    rows = browser.find_elements(By.CSS_SELECTOR, "#an-rows .an-row")
    assert len(rows) == len(d["legal"])  # a bar per legal action
    assert all(r.find_element(By.CSS_SELECTOR, ".an-track").is_displayed() for r in rows)
    assert {int(r.get_attribute("data-action")) for r in rows} == {x["action"] for x in d["legal"]}
    chosen = browser.find_elements(By.CSS_SELECTOR, "#an-rows .an-row.chosen")
    best = browser.find_elements(By.CSS_SELECTOR, "#an-rows .an-row.best")
    assert [int(x.get_attribute("data-action")) for x in chosen] == [d["chosen"]]
    assert [int(x.get_attribute("data-action")) for x in best] == [d["best"]]
    assert "★" in best[0].text and "✔" in chosen[0].text and "±" in rows[0].text
    assert f"loss {d['loss']:.2f}" in browser.find_element(By.ID, "an-head").text
    browser.save_screenshot(str(shots / "review-panel.png"))
    # a frame that is not a reviewed decision has no panel; the summary's buttons jump
    reviewed = {x["step"] for x in rev["decisions"]} | {w["step"] for w in rev["wins"]}
    other = next(i for i in range(len(rec["actions"]) + 1) if i not in reviewed)
    browser.execute_script(f"window.replay.go({other})")
    assert not browser.find_element(By.ID, "analysis").is_displayed()
    jumps = browser.find_elements(By.CSS_SELECTOR, "#rs-jumps button[data-step]")
    assert {int(b.get_attribute("data-step")) for b in jumps} >= reviewed
    target = jumps[0]
    step = int(target.get_attribute("data-step"))
    target.click()
    assert browser.execute_script("return window.replay.index()") == step
    assert browser.find_element(By.ID, "analysis").is_displayed()
    for w in rev["wins"]:  # a win offer: its points and whether it was taken
        browser.execute_script(f"window.replay.go({w['step']})")
        text = browser.find_element(By.ID, "an-win").text
        assert f"{w['points']:+d}" in text.replace("−", "-") and ("taken" in text) == w["taken"]


def test_the_hint_shows_the_values_at_your_decision(browser, server, shots):
    _needs_core()
    browser.get(f"{server}/?seed=5")
    _wait(browser, lambda d: d.execute_script("return window.paohuzi && window.paohuzi.state()"),
          "the table")
    assert not browser.find_elements(By.CSS_SELECTOR, "#actions .hint")  # off by default
    browser.find_element(By.ID, "hint-toggle").click()
    for _ in range(2):  # at this decision and, after a move, at the next
        s = _state(browser)
        if s["done"]:
            break
        _wait(browser, lambda d, n=len(s["legal"]): len(d.find_elements(
            By.CSS_SELECTOR, "#actions button.act .hint")) == n, "a value on every action button")
        hint = browser.execute_script("return window.paohuzi.hint()")
        assert hint["version"] == s["version"]
        best = browser.find_elements(By.CSS_SELECTOR, "#actions button.act.best")
        assert [int(b.get_attribute("data-action")) for b in best] == [hint["best"]]
        assert "★" in best[0].text and "best" in browser.find_element(By.ID, "hint").text
        browser.save_screenshot(str(shots / f"table-hint-{s['version']}.png"))
        browser.find_elements(By.CSS_SELECTOR, "#actions button.act")[-1].click()
        _wait(browser, lambda d, v=s["version"]: _state(d)["version"] != v, "the table to answer")
    browser.find_element(By.ID, "hint-toggle").click()  # off: the values go
    assert not browser.find_elements(By.CSS_SELECTOR, "#actions .hint")
    # play the hand out; its review opens from the link beside the replay's
    deadline = time.monotonic() + 120
    while not _state(browser)["done"]:
        assert time.monotonic() < deadline, "the hand took too long to play"
        v = _state(browser)["version"]
        browser.execute_script("var s = window.paohuzi.state(); window.paohuzi.act(s.legal[0].action)")
        _wait(browser, lambda d, v=v: _state(d)["version"] != v, "the table to answer")
    link = browser.find_element(By.ID, "review-link").get_attribute("href")
    assert "/review/" in link
    browser.get(link)
    _wait(browser, lambda d: d.find_elements(By.ID, "review-summary"), "the review page")
    assert browser.find_element(By.ID, "review-summary").is_displayed()
