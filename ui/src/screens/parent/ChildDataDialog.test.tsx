import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import * as family from "../../familyApi";
import type { Profile } from "../../protocol";
import { profile, renderWithI18n } from "../../test/helpers";
import { ProfilesTab } from "./ProfilesTab";

vi.mock("../../api", async (importActual) => ({
  ...(await importActual<typeof import("../../api")>()),
  profilesList: vi.fn(),
}));
vi.mock("../../familyApi");

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明" });
const hong = profile({ id: "c2", kind: "child", name: "小红" });

describe("a child's data: export and delete behind the PIN", () => {
  let family_: Profile[];

  beforeEach(() => {
    family_ = [mum, ming, hong];
    vi.mocked(api.profilesList).mockImplementation(async () => family_);
    vi.mocked(family.exportDefaultPath).mockResolvedValue("/home/li/Downloads/deskmate-小明-2026-11-27.zip");
    vi.mocked(family.profileExport).mockReset();
    vi.mocked(family.profileDelete).mockReset();
  });

  async function open(which: "child-export" | "child-delete", name: string) {
    const row = (await screen.findAllByTestId("profile-row")).find((r) => r.dataset.name === name)!;
    expect(within(row).getByTestId(which)).toBeInTheDocument();
    return row;
  }

  it("a parent's row has no export or delete; each child's has both", async () => {
    renderWithI18n(<ProfilesTab parent={mum} />);
    const rows = await screen.findAllByTestId("profile-row");
    expect(rows.map((r) => [r.dataset.name, !!within(r).queryByTestId("child-delete")])).toEqual([
      ["妈妈", false],
      ["小明", true],
      ["小红", true],
    ]);
  });

  it("delete asks for the child's name and the PIN, then says what it removed", async () => {
    const user = userEvent.setup();
    vi.mocked(family.profileDelete)
      .mockRejectedValueOnce({ code: "pin.wrong", message: "wrong PIN", params: { tries_left: 4 } })
      .mockImplementationOnce(async () => {
        family_ = [mum, hong];
        return {
          profile_id: "c1",
          name: "小明",
          tables: [
            { table: "attempts", rows: 12 },
            { table: "messages", rows: 4 },
          ],
          paths_removed: ["/data/threads/t1"],
          sent_to_family: false,
        };
      });
    renderWithI18n(<ProfilesTab parent={mum} />);
    const row = await open("child-delete", "小明");
    await user.click(within(row).getByTestId("child-delete"));
    const dialog = screen.getByTestId("child-delete-dialog");
    expect(within(dialog).getByTestId("child-delete-warning")).toHaveTextContent("小明的练习、复习、报告、对话、记忆和文件都会被删除");
    const submit = within(dialog).getByTestId("child-data-submit");
    expect(submit).toBeDisabled();
    await user.type(within(dialog).getByTestId("child-delete-name"), "小红");
    await user.type(within(dialog).getByTestId("child-data-pin"), "2468");
    expect(submit).toBeDisabled();
    await user.clear(within(dialog).getByTestId("child-delete-name"));
    await user.type(within(dialog).getByTestId("child-delete-name"), "小明");
    expect(submit).toBeEnabled();
    await user.click(submit);
    expect(family.profileDelete).toHaveBeenCalledWith("c1", "p1", "2468");
    // A wrong PIN is said, the PIN emptied, nothing deleted.
    expect(await within(dialog).findByTestId("child-data-error")).toHaveTextContent("密码不对。还可以再试 4 次");
    expect(within(dialog).getByTestId("child-data-pin")).toHaveValue("");
    await user.type(within(dialog).getByTestId("child-data-pin"), "1357");
    await user.click(submit);
    const done = await screen.findByTestId("child-deleted");
    expect(done).toHaveTextContent("已删除小明和全部数据");
    expect(within(done).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "attempts：12 条",
      "messages：4 条",
      "删除了文件夹 /data/threads/t1",
    ]);
    expect(screen.queryByTestId("child-delete-dialog")).toBeNull();
    await waitFor(() => expect(screen.getAllByTestId("profile-row").map((r) => r.dataset.name)).toEqual(["妈妈", "小红"]));
  });

  it("cancel deletes nothing", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ProfilesTab parent={mum} />, "en");
    const row = await open("child-delete", "小红");
    await user.click(within(row).getByTestId("child-delete"));
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByTestId("child-delete-dialog")).toBeNull();
    expect(family.profileDelete).not.toHaveBeenCalled();
  });

  it("export proposes a path the parent may change, checks the PIN, and says where it went", async () => {
    const user = userEvent.setup();
    vi.mocked(family.profileExport).mockImplementation(async (_c, _p, _pin, path) => ({
      profile_id: "c1",
      name: "小明",
      file: path,
      tables: [
        { table: "attempts", rows: 12 },
        { table: "reviews", rows: 3 },
      ],
      workspace_files: 2,
    }));
    renderWithI18n(<ProfilesTab parent={mum} />, "en");
    const row = await open("child-export", "小明");
    await user.click(within(row).getByTestId("child-export"));
    const dialog = screen.getByTestId("child-export-dialog");
    const path = within(dialog).getByTestId("child-export-path");
    await waitFor(() => expect(path).toHaveValue("/home/li/Downloads/deskmate-小明-2026-11-27.zip"));
    expect(family.exportDefaultPath).toHaveBeenCalledWith("c1");
    await user.clear(path);
    await user.type(path, "/tmp/ming.zip");
    expect(within(dialog).getByTestId("child-data-submit")).toBeDisabled();
    await user.type(within(dialog).getByTestId("child-data-pin"), "2468");
    await user.click(within(dialog).getByTestId("child-data-submit"));
    expect(family.profileExport).toHaveBeenCalledWith("c1", "p1", "2468", "/tmp/ming.zip");
    expect(await screen.findByTestId("child-exported")).toHaveTextContent("Exported 小明's data to /tmp/ming.zip: 15 records, 2 files.");
  });
});
