import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as kb from "../../companionApi";
import type { KnowledgeBaseView, KnowledgeDocumentView, KnowledgeProgress } from "../../api";
import { renderWithI18n } from "../../test/helpers";
import { KnowledgeTab } from "./KnowledgeTab";

vi.mock("../../api");
vi.mock("../../companionApi");

const library: KnowledgeBaseView = { name: "library", builtin: true, documents: 132, chunks: 140 };
const doc = (source: string, chunks: number): KnowledgeDocumentView => ({
  knowledge_base: "语文",
  source,
  title: source.replace(/\.\w+$/, ""),
  chunks,
  chars: chunks * 800,
});

describe("knowledge bases", () => {
  // The bases and documents as the core holds them: add and remove change them.
  let held: Record<string, KnowledgeDocumentView[]>;

  beforeEach(() => {
    held = {};
    vi.mocked(kb.kbList).mockImplementation(async () => [
      library,
      ...Object.entries(held).map(([name, docs]) => ({
        name,
        builtin: false,
        documents: docs.length,
        chunks: docs.reduce((n, d) => n + d.chunks, 0),
      })),
    ]);
    vi.mocked(kb.kbDocuments).mockImplementation(async (base) => held[base] ?? []);
    vi.mocked(kb.readUploads).mockImplementation(async (files) => files.map((f) => ({ name: f.name, data_base64: "AAAA" })));
    vi.mocked(kb.kbRemove).mockImplementation(async (base, source) => {
      const before = held[base]?.length ?? 0;
      if (source === null) delete held[base];
      else held[base] = held[base].filter((d) => d.source !== source);
      return before - (held[base]?.length ?? 0);
    });
  });

  it("adds a picked document, showing its embedding progress until it is stored, then lists it", async () => {
    const user = userEvent.setup();
    let progress: (p: KnowledgeProgress) => void = () => {};
    let finish: () => void = () => {};
    vi.mocked(kb.kbAdd).mockImplementation(
      (base, files, onProgress) =>
        new Promise((resolve) => {
          progress = onProgress;
          finish = () => {
            held[base] = [doc(files[0].name, 32)];
            resolve(held[base]);
          };
        }),
    );
    renderWithI18n(<KnowledgeTab />);
    const bases = await screen.findByTestId("knowledge-bases");
    expect(within(bases).getByTestId("knowledge-base")).toHaveTextContent("内置诗文库");
    expect(within(bases).queryByTestId("knowledge-remove-base")).toBeNull();

    await user.clear(screen.getByTestId("knowledge-base-name"));
    await user.type(screen.getByTestId("knowledge-base-name"), "语文");
    const pdf = new File(["%PDF-1.4"], "课本.pdf", { type: "application/pdf" });
    await user.upload(screen.getByTestId("knowledge-files"), pdf);
    expect(screen.getByTestId("knowledge-chosen")).toHaveTextContent("课本.pdf");
    await user.click(screen.getByTestId("knowledge-add-button"));
    await waitFor(() => expect(kb.kbAdd).toHaveBeenCalledWith("语文", [{ name: "课本.pdf", data_base64: "AAAA" }], expect.any(Function)));
    expect(screen.getByTestId("knowledge-add-button")).toBeDisabled();

    act(() => progress({ source: "课本.pdf", done_chunks: 0, total_chunks: 32 }));
    act(() => progress({ source: "课本.pdf", done_chunks: 16, total_chunks: 32 }));
    const bar = screen.getByTestId("knowledge-progress");
    expect(bar).toHaveTextContent("课本.pdf：已处理 16 / 32 段");
    expect(within(bar).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "50");

    act(() => progress({ source: "课本.pdf", done_chunks: 32, total_chunks: 32 }));
    await act(async () => finish());
    expect(await screen.findByTestId("knowledge-added")).toHaveTextContent("已把 课本.pdf 加入“语文”（32 段）");
    // The new base is listed and opened with its document.
    const added = await screen.findByTestId("knowledge-document");
    expect(added).toHaveAttribute("data-source", "课本.pdf");
    expect(screen.getAllByTestId("knowledge-base").map((b) => b.dataset.name)).toEqual(["library", "语文"]);
  });

  it("removes one document, then the whole base", async () => {
    const user = userEvent.setup();
    held = { 语文: [doc("a.md", 2), doc("b.md", 3)] };
    vi.spyOn(window, "confirm").mockReturnValue(true);
    renderWithI18n(<KnowledgeTab />, "en");
    const base = (await screen.findAllByTestId("knowledge-base"))[1];
    expect(base).toHaveTextContent("2 document(s), 5 passages");
    await user.click(within(base).getByTestId("knowledge-open"));
    const docs = await within(base).findAllByTestId("knowledge-document");
    await user.click(within(docs[0]).getByTestId("knowledge-remove-document"));
    expect(kb.kbRemove).toHaveBeenCalledWith("语文", "a.md");
    await waitFor(() => expect(screen.getAllByTestId("knowledge-document").map((d) => d.dataset.source)).toEqual(["b.md"]));

    await user.click(screen.getByTestId("knowledge-remove-base"));
    expect(window.confirm).toHaveBeenCalled();
    expect(kb.kbRemove).toHaveBeenLastCalledWith("语文", null);
    await waitFor(() => expect(screen.getAllByTestId("knowledge-base")).toHaveLength(1));
  });

  it("says in plain words why a file cannot be added, keeping the bases as they were", async () => {
    const user = userEvent.setup();
    vi.mocked(kb.kbAdd).mockRejectedValue({
      code: "knowledge.empty",
      message: "扫描.pdf has no text to add",
      params: { file: "扫描.pdf" },
    });
    renderWithI18n(<KnowledgeTab />);
    await screen.findByTestId("knowledge-bases");
    await user.upload(screen.getByTestId("knowledge-files"), new File(["%PDF-1.4"], "扫描.pdf", { type: "application/pdf" }));
    await user.click(screen.getByTestId("knowledge-add-button"));
    const error = await screen.findByTestId("knowledge-error");
    expect(error).toHaveTextContent("扫描.pdf 里没有文字（扫描的 PDF 只有图片）。这次什么也没有加进知识库。");
    expect(error).not.toHaveTextContent("no text to add");
    expect(screen.getAllByTestId("knowledge-base")).toHaveLength(1);
    expect(screen.queryByTestId("knowledge-added")).toBeNull();
  });

  it("takes files dropped on the form", async () => {
    vi.mocked(kb.kbAdd).mockResolvedValue([doc("drop.txt", 1)]);
    renderWithI18n(<KnowledgeTab />);
    const form = await screen.findByTestId("knowledge-add");
    const file = new File(["静夜思"], "drop.txt", { type: "text/plain" });
    fireEvent.dragOver(form, { dataTransfer: { files: [file] } });
    expect(form).toHaveClass("drop-target");
    fireEvent.drop(form, { dataTransfer: { files: [file] } });
    expect(screen.getByTestId("knowledge-chosen")).toHaveTextContent("drop.txt");
    expect(form).not.toHaveClass("drop-target");
  });
});
