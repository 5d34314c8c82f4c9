"""A parent's questions about progress in the real window (issue 20): the
Ask tab (问问进度) answers a built-in question without a model — with a note
that no model is set — and draws its line chart; then, with the scripted
model server as the model, a question in words is answered by the model's
own read-only SELECT, and the bar chart of what that query found is drawn.
Each chart's SVG is checked in the page and a screenshot kept."""
import json

import model_server
from ui import cli, click, css, fill, set_up_family, shot, tid, unlock_parent, visible, wait

POEM = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"


def answer_chart(drv, kind):
    """The answer's chart once drawn: its kind and the SVG marks recharts drew."""
    chart = visible(drv, tid("answer-chart"))
    assert chart.get_attribute("data-kind") == kind
    wait(drv, lambda d: d.find_elements(*tid("answer-chart")) and
         d.find_element(*tid("answer-chart")).find_elements("css selector", "svg.recharts-surface"))
    # The screenshot shows the answer and its chart.
    drv.execute_script("arguments[0].scrollIntoView({block: 'end'})", chart)
    return chart


def test_a_built_in_question_without_a_model_draws_its_chart(app, data_dir):
    drv = app
    set_up_family(drv)
    visible(drv, css('[data-testid="profile-card"][data-name="小明"]'))
    # Two recitations today, through the CLI on the window's data.
    cli(data_dir, "recite", "attempt", "--profile", "小明", "--material", "静夜思", "--transcript", POEM, "--mode", "text")
    cli(data_dir, "recite", "attempt", "--profile", "小明", "--material", "静夜思", "--transcript", POEM[:12], "--mode", "text")
    unlock_parent(drv)
    click(drv, tid("tab-ask"))
    assert "还没有设置 AI 模型" in visible(drv, tid("ask-no-model")).text
    chips = drv.find_elements(*tid("ask-chip"))
    assert [c.text for c in chips][0] == "这周背得怎么样？"
    click(drv, tid("ask-chip"))
    answer = visible(drv, tid("ask-answer"))
    assert answer.get_attribute("data-question") == "accuracy_this_week"
    assert "一共背了 2 次" in drv.find_element(*tid("ask-answer-text")).text
    chart = answer_chart(drv, "line")
    assert chart.find_elements("css selector", ".recharts-line-curve")
    shot(drv, "ask-built-in")


def test_a_scripted_models_question_draws_its_bar_chart(app, data_dir):
    drv = app
    server = model_server.start()
    try:
        cli(data_dir, "llm", "set", "--agree", "--model", "custom:scripted", "--base-url", f"http://127.0.0.1:{server.server_port}/v1")
        # The tab reads the model setting when it opens.
        drv.execute_script("window.scrollTo(0, 0)")
        click(drv, tid("tab-usage"))
        click(drv, tid("tab-ask"))
        visible(drv, tid("ask-input"))
        fill(drv, "ask-input", "每篇诗各背了几次？")
        click(drv, tid("ask-submit"))
        answer = visible(drv, tid("ask-answer"))
        wait(drv, lambda d: d.find_element(*tid("ask-answer")).get_attribute("data-question") == "model")
        assert "一共背了 2 次" in drv.find_element(*tid("ask-answer-text")).text
        chart = answer_chart(drv, "bar")
        # One bar: 静夜思, twice — what the model's SELECT found.
        wait(drv, lambda d: len(chart.find_elements("css selector", ".recharts-bar-rectangle")) == 1)
        assert "静夜思" in chart.text
        assert drv.find_elements(*tid("ask-no-model")) == []
        shot(drv, "ask-model-chart")
        # The model ran its query on the read-only tool and saw the rows.
        tool_results = [m for r in server.requests for m in r["messages"] if m.get("role") == "tool"]
        assert tool_results and json.loads(tool_results[0]["content"])["rows"] == [["静夜思", 2]]
    finally:
        server.shutdown()
