import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../api";
import type { MaterialFilter } from "../api";
import { material, profile, renderWithI18n } from "../test/helpers";
import { ChildHome } from "./ChildHome";

vi.mock("../api");

const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });
const jingyesi = material({
  id: "m1",
  title: "静夜思",
  author: "李白",
  dynasty: "唐",
  grade: 1,
  body: "床前明月光，\n疑是地上霜。\n举头望明月，\n低头思故乡。",
});
const twinkle = material({
  id: "m2",
  lang: "en",
  title: "Twinkle, Twinkle, Little Star",
  body: "\nTwinkle, twinkle, little star,\nHow I wonder what you are!",
});

const calls = () => vi.mocked(api.materialsList).mock.calls.map((c) => c[0] as MaterialFilter);
const lastCall = () => calls()[calls().length - 1];

describe("child home: the library", () => {
  beforeEach(() => {
    vi.mocked(api.materialsList).mockResolvedValue([jingyesi, twinkle]);
  });

  it("loads everything first and renders a card per material", async () => {
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    const cards = await screen.findAllByTestId("material-card");
    expect(calls()[0]).toEqual({ lang: null, grade: null, search: null });
    expect(cards.map((c) => [c.dataset.title, c.dataset.lang])).toEqual([
      ["静夜思", "zh"],
      ["Twinkle, Twinkle, Little Star", "en"],
    ]);
    const first = within(cards[0]);
    expect(first.getByText("李白（唐）")).toBeInTheDocument();
    expect(first.getByText("床前明月光，")).toBeInTheDocument();
    expect(first.queryByText(/疑是地上霜/)).not.toBeInTheDocument();
    expect(within(cards[1]).getByText("Twinkle, twinkle, little star,")).toBeInTheDocument();
    expect(screen.getByTestId("child-home")).toHaveTextContent("小明");
  });

  it("passes the language and grade filters to the api and shows what comes back", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");

    vi.mocked(api.materialsList).mockResolvedValue([twinkle]);
    await user.click(screen.getByTestId("filter-lang-en"));
    await waitFor(() => expect(lastCall()).toEqual({ lang: "en", grade: null, search: null }));
    await waitFor(() => expect(screen.getAllByTestId("material-card")).toHaveLength(1));
    expect(screen.getByTestId("material-card")).toHaveAttribute("data-title", "Twinkle, Twinkle, Little Star");
    expect(screen.getByTestId("filter-lang-en")).toHaveAttribute("aria-pressed", "true");

    vi.mocked(api.materialsList).mockResolvedValue([]);
    await user.selectOptions(screen.getByTestId("filter-grade"), "3");
    await waitFor(() => expect(lastCall()).toEqual({ lang: "en", grade: 3, search: null }));
    expect(await screen.findByText("这里还没有内容，换个条件试试吧。")).toBeInTheDocument();
    expect(screen.queryByTestId("material-card")).not.toBeInTheDocument();

    vi.mocked(api.materialsList).mockResolvedValue([jingyesi]);
    await user.click(screen.getByTestId("filter-lang-zh"));
    await waitFor(() => expect(lastCall()).toEqual({ lang: "zh", grade: 3, search: null }));
    await user.click(screen.getByTestId("filter-lang-all"));
    await user.selectOptions(screen.getByTestId("filter-grade"), "");
    await waitFor(() => expect(lastCall()).toEqual({ lang: null, grade: null, search: null }));
  });

  it("searches through the api, debounced", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");

    vi.mocked(api.materialsList).mockResolvedValue([jingyesi]);
    await user.type(screen.getByTestId("library-search"), "明月");
    // Nothing is sent for the keystrokes themselves...
    expect(calls().filter((f) => f.search)).toHaveLength(0);
    // ...only once typing has paused.
    await waitFor(() => expect(lastCall()).toEqual({ lang: null, grade: null, search: "明月" }));
    expect(calls().filter((f) => f.search)).toHaveLength(1);
    await waitFor(() => expect(screen.getAllByTestId("material-card")).toHaveLength(1));
  });

  it("opens a material to read the full text and comes back", async () => {
    const user = userEvent.setup();
    const onExit = vi.fn();
    renderWithI18n(<ChildHome profile={ming} onExit={onExit} />);
    const [card] = await screen.findAllByTestId("material-card");
    await user.click(card);

    const body = screen.getByTestId("material-detail-body");
    expect(body.textContent).toBe(jingyesi.body);
    expect(screen.getByTestId("material-detail-title")).toHaveTextContent("静夜思");
    expect(screen.queryByTestId("material-card")).not.toBeInTheDocument();

    await user.click(screen.getByTestId("detail-back"));
    expect(await screen.findAllByTestId("material-card")).toHaveLength(2);
    expect(onExit).not.toHaveBeenCalled();

    await user.click(screen.getByTestId("back-button"));
    expect(onExit).toHaveBeenCalledTimes(1);
  });

  it("keeps a Chinese poem's byline in Chinese punctuation in the English UI", async () => {
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />, "en");
    const [card] = await screen.findAllByTestId("material-card");
    expect(within(card).getByText("李白（唐）")).toBeInTheDocument();
    expect(within(card).getByText("Grade 1")).toBeInTheDocument();
    expect(screen.getByText("Hi 小明! What shall we read today?")).toBeInTheDocument();
  });

  it("shows the api's error", async () => {
    vi.mocked(api.materialsList).mockRejectedValue("the library could not be read");
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("the library could not be read");
  });
});
