import { fireEvent, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import { profile, renderWithI18n } from "../../test/helpers";
import { ChatScreen } from "./ChatScreen";
import { NOTICE_AGREED } from "../../test/samples";

vi.mock("../../api");

const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });

describe("chat attachments", () => {
  beforeEach(() => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "openai:gpt-4o-mini", base_url: null, has_key: true, notice: NOTICE_AGREED });
    vi.mocked(api.chatThreads).mockResolvedValue([]);
    vi.mocked(api.chatSend).mockResolvedValue({ thread_id: "th1", run_id: "r1" });
    // The bytes as the page reads them (api.readPhotos is the one reader of files).
    vi.mocked(api.readPhotos).mockImplementation(async (files) => files.map((f) => ({ name: f.name, data: `b64:${f.name}` })));
  });

  it("sends picked, photographed and dropped files with the message, then clears them", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={ming} onBack={vi.fn()} />);
    await waitFor(() => expect(screen.getByTestId("chat-attach")).toBeEnabled());
    const camera = screen.getByTestId("chat-camera");
    expect(camera).toHaveAttribute("capture", "environment");
    expect(camera).toHaveAttribute("accept", "image/*");

    await user.upload(screen.getByTestId("chat-attach"), new File(["# 生字"], "notes.md", { type: "text/markdown" }));
    await user.upload(camera, new File([new Uint8Array([0x89, 0x50])], "page.png", { type: "image/png" }));
    fireEvent.drop(screen.getByTestId("chat-form"), {
      dataTransfer: { files: [new File(["%PDF"], "作业.pdf", { type: "application/pdf" })] },
    });
    expect(screen.getAllByTestId("chat-attachment").map((a) => a.textContent)).toEqual([" notes.md ×", " page.png ×", " 作业.pdf ×"]);
    // One taken off again.
    await user.click(screen.getByRole("button", { name: "去掉 notes.md" }));
    expect(screen.getAllByTestId("chat-attachment")).toHaveLength(2);

    await user.type(screen.getByTestId("chat-input"), "帮我看看");
    await user.click(screen.getByTestId("chat-send"));
    await waitFor(() =>
      expect(api.chatSend).toHaveBeenCalledWith(null, "c1", "帮我看看", expect.any(Function), [
        { name: "page.png", data_base64: "b64:page.png" },
        { name: "作业.pdf", data_base64: "b64:作业.pdf" },
      ]),
    );
    expect(screen.queryByTestId("chat-attachments")).toBeNull();
    expect(screen.getByTestId("user-message")).toHaveTextContent("帮我看看 附件：page.png, 作业.pdf");
  });

  it("sends a message without files as before", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={ming} onBack={vi.fn()} />);
    await user.type(screen.getByTestId("chat-input"), "你好");
    await user.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(api.chatSend).toHaveBeenCalled());
    expect(vi.mocked(api.chatSend).mock.calls[0]).toHaveLength(4);
  });
});
