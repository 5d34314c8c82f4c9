import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../../api";
import type { SyncView } from "../../../api";
import { Header } from "../../../components/Header";
import { announceSync, formatSyncTime, syncState } from "../../../components/SyncIndicator";
import { renderWithI18n } from "../../../test/helpers";
import { JoinFamily, validateJoin } from "../../JoinFamily";
import { Setup } from "../../Setup";
import { SyncSection, validateAccount } from "./SyncSection";

vi.mock("../../../api");

function view(over: Partial<SyncView> = {}): SyncView {
  return {
    signed_in: true,
    server_url: "http://127.0.0.1:8787",
    family_id: "fam-1",
    device_id: "dev-desk",
    enabled: true,
    transcripts: false,
    pending: 0,
    last_sync_at: "2026-11-27T06:05:00Z",
    last_error: null,
    running: true,
    background: null,
    kinds: ["profile", "material", "attempt", "report"],
    ...over,
  };
}

const SIGNED_OUT = view({ signed_in: false, server_url: null, family_id: null, device_id: null, enabled: false, running: true, last_sync_at: null });

describe("settings: family account and sync", () => {
  beforeEach(() => {
    vi.mocked(api.syncAccount).mockResolvedValue({
      family_id: "fam-1",
      family_name: "李家",
      device_id: "dev-desk",
      account_id: "acc-1",
      email: "mama@example.com",
      role: "owner",
    });
    vi.mocked(api.syncDevices).mockResolvedValue([
      { id: "dev-desk", name: "desktop", kind: "parent", created_at: "2026-11-27T06:00:00Z", last_seen_at: "2026-11-27T06:05:00Z" },
      { id: "dev-tab", name: "tablet", kind: "paired", created_at: "2026-11-27T06:01:00Z", last_seen_at: null },
    ]);
  });

  it("checks the account form before anything is sent, then signs up with the family's name", async () => {
    vi.mocked(api.syncView).mockResolvedValueOnce(SIGNED_OUT).mockResolvedValue(view({ enabled: false }));
    vi.mocked(api.syncSignup).mockResolvedValue({ family_id: "fam-1", device_id: "dev-desk" });
    const user = userEvent.setup();
    renderWithI18n(<SyncSection />);
    await user.type(await screen.findByTestId("sync-server"), "sync.example.com");
    await user.type(screen.getByTestId("sync-email"), "mama");
    await user.type(screen.getByTestId("sync-password"), "short");
    await user.click(screen.getByTestId("sync-submit"));
    expect(screen.getByText("地址要以 http:// 或 https:// 开头。")).toBeInTheDocument();
    expect(screen.getByText("请填写正确的邮箱。")).toBeInTheDocument();
    expect(screen.getByText("密码至少要 8 个字符。")).toBeInTheDocument();
    expect(api.syncSignup).not.toHaveBeenCalled();

    await user.clear(screen.getByTestId("sync-server"));
    await user.type(screen.getByTestId("sync-server"), "http://127.0.0.1:8787");
    await user.type(screen.getByTestId("sync-email"), "@example.com");
    await user.type(screen.getByTestId("sync-password"), " horse");
    await user.type(screen.getByTestId("sync-family"), "李家");
    await user.click(screen.getByTestId("sync-submit"));
    expect(api.syncSignup).toHaveBeenCalledWith("http://127.0.0.1:8787", {
      email: "mama@example.com",
      password: "short horse",
      family_name: "李家",
      device_name: "desktop",
    });
    expect(await screen.findByTestId("sync-signed-in")).toBeInTheDocument();
    expect(screen.getByTestId("sync-on")).toHaveTextContent("同步已关闭");
  });

  it("signs in to an existing account; a refusal is said in plain words", async () => {
    vi.mocked(api.syncView).mockResolvedValue(SIGNED_OUT);
    vi.mocked(api.syncLogin).mockRejectedValue("邮箱、密码或配对码不对，或者已经过期。请检查后再试。");
    const user = userEvent.setup();
    renderWithI18n(<SyncSection />);
    await user.click(await screen.findByTestId("sync-mode-login"));
    expect(screen.queryByTestId("sync-family")).not.toBeInTheDocument();
    await user.type(screen.getByTestId("sync-server"), "https://sync.example.com/");
    await user.type(screen.getByTestId("sync-email"), "mama@example.com");
    await user.type(screen.getByTestId("sync-password"), "pw");
    await user.clear(screen.getByTestId("sync-device-name"));
    await user.type(screen.getByTestId("sync-device-name"), "laptop");
    await user.click(screen.getByTestId("sync-submit"));
    expect(api.syncLogin).toHaveBeenCalledWith("https://sync.example.com/", { email: "mama@example.com", password: "pw", device_name: "laptop" });
    expect(await screen.findByTestId("sync-message")).toHaveTextContent("没有成功：邮箱、密码或配对码不对");
    expect(screen.getByTestId("sync-password")).toHaveValue("pw");
  });

  it("shows what syncs and when, turns sync off and on, and syncs now", async () => {
    vi.mocked(api.syncView).mockResolvedValue(view({ pending: 2, last_error: "the sync server cannot be reached (refused)" }));
    vi.mocked(api.syncSet).mockResolvedValueOnce(view({ enabled: false, running: false })).mockResolvedValueOnce(view());
    vi.mocked(api.syncNow).mockResolvedValue(view());
    const user = userEvent.setup();
    renderWithI18n(<SyncSection />);
    await waitFor(() => expect(screen.getByTestId("sync-account")).toHaveTextContent("mama@example.com · 家庭：李家"));
    expect(screen.getByTestId("sync-signed-in-to")).toHaveTextContent("已登录 http://127.0.0.1:8787");
    expect(screen.getByTestId("sync-pending")).toHaveTextContent("等待发送：2 条改动");
    expect(screen.getByTestId("sync-last-error")).toHaveTextContent("cannot be reached");
    expect(screen.getByTestId("sync-last")).toHaveTextContent("上次同步：");
    expect(screen.getAllByTestId("sync-kind").map((k) => k.textContent)).toEqual(["家人的资料", "自己添加的内容", "背诵记录", "学习报告"]);
    expect(screen.getByTestId("sync-state")).toHaveAttribute("data-running", "true");

    await user.click(screen.getByTestId("sync-enabled"));
    expect(api.syncSet).toHaveBeenLastCalledWith(false, false);
    await waitFor(() => expect(screen.getByTestId("sync-state")).toHaveAttribute("data-running", "false"));
    expect(screen.getByTestId("sync-running")).toHaveTextContent("后台同步已停止");
    expect(screen.getByTestId("sync-now")).toBeDisabled();
    expect(screen.getByTestId("sync-transcripts")).toBeDisabled();

    await user.click(screen.getByTestId("sync-enabled"));
    expect(api.syncSet).toHaveBeenLastCalledWith(true, false);
    await waitFor(() => expect(screen.getByTestId("sync-state")).toHaveAttribute("data-enabled", "true"));
    vi.mocked(api.syncView).mockResolvedValue(view());
    await user.click(screen.getByTestId("sync-now"));
    expect(api.syncNow).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByTestId("sync-last-error")).not.toBeInTheDocument());
    expect(screen.getByTestId("sync-signed-in")).toHaveAttribute("data-busy", "");
  });

  it("a failed round still shows the state it left, with its error", async () => {
    vi.mocked(api.syncView).mockResolvedValueOnce(view()).mockResolvedValue(view({ last_error: "the sync server refused: no" }));
    vi.mocked(api.syncNow).mockRejectedValue("同步服务器拒绝了：no");
    const user = userEvent.setup();
    renderWithI18n(<SyncSection />);
    await user.click(await screen.findByTestId("sync-now"));
    expect(await screen.findByTestId("sync-message")).toHaveTextContent("没有成功：同步服务器拒绝了：no");
    expect(await screen.findByTestId("sync-last-error")).toHaveTextContent("refused: no");
  });

  it("pairs a tablet with a code, lists the devices and removes one after asking", async () => {
    vi.mocked(api.syncView).mockResolvedValue(view());
    vi.mocked(api.syncPairingCode).mockResolvedValue({ code: "12345678", expires_at: "2026-11-27T06:15:00Z" });
    vi.mocked(api.syncRemoveDevice).mockResolvedValue(null);
    const user = userEvent.setup();
    renderWithI18n(<SyncSection />);
    const devices = await screen.findAllByTestId("sync-device");
    expect(devices.map((d) => d.getAttribute("data-name"))).toEqual(["desktop", "tablet"]);
    // This device cannot be removed from here; the tablet can.
    expect(within(devices[0]).getByText("这台设备")).toBeInTheDocument();
    expect(within(devices[0]).queryByTestId("sync-device-remove")).not.toBeInTheDocument();

    await user.click(await screen.findByTestId("sync-pair"));
    expect(await screen.findByTestId("sync-pair-code")).toHaveTextContent("12345678");
    expect(screen.getByTestId("sync-pairing")).toHaveTextContent("http://127.0.0.1:8787");

    await user.click(await within(devices[1]).findByTestId("sync-device-remove"));
    expect(api.syncRemoveDevice).not.toHaveBeenCalled();
    vi.mocked(api.syncDevices).mockResolvedValue([
      { id: "dev-desk", name: "desktop", kind: "parent", created_at: "2026-11-27T06:00:00Z", last_seen_at: null },
    ]);
    await user.click(screen.getByTestId("sync-device-remove-sure"));
    expect(api.syncRemoveDevice).toHaveBeenCalledWith("dev-tab");
    expect(await screen.findByTestId("sync-message")).toHaveTextContent("已移除“tablet”");
    await waitFor(() => expect(screen.getAllByTestId("sync-device")).toHaveLength(1));
  });

  it("a paired device neither pairs nor removes devices; it can sign out", async () => {
    vi.mocked(api.syncView).mockResolvedValueOnce(view({ device_id: "dev-tab" })).mockResolvedValue(SIGNED_OUT);
    vi.mocked(api.syncAccount).mockResolvedValue({
      family_id: "fam-1",
      family_name: "李家",
      device_id: "dev-tab",
      account_id: null,
      email: null,
      role: null,
    });
    vi.mocked(api.syncLogout).mockResolvedValue(null);
    const user = userEvent.setup();
    renderWithI18n(<SyncSection />, "en");
    await waitFor(() => expect(screen.getByTestId("sync-account")).toHaveTextContent("A paired device · family: 李家"));
    await screen.findAllByTestId("sync-device");
    expect(screen.queryByTestId("sync-pair")).not.toBeInTheDocument();
    expect(screen.queryByTestId("sync-device-remove")).not.toBeInTheDocument();
    await user.click(screen.getByTestId("sync-logout"));
    expect(api.syncLogout).toHaveBeenCalled();
    expect(await screen.findByTestId("sync-account-form")).toBeInTheDocument();
  });

  it("offline, the account waits and the devices say why", async () => {
    vi.mocked(api.syncView).mockResolvedValue(view());
    vi.mocked(api.syncAccount).mockRejectedValue("offline");
    vi.mocked(api.syncDevices).mockRejectedValue("连不上同步服务器。");
    renderWithI18n(<SyncSection />);
    expect(await screen.findByTestId("sync-devices-error")).toHaveTextContent("读不到设备列表：连不上同步服务器。");
    await waitFor(() => expect(screen.getByTestId("sync-account")).toHaveTextContent("现在连不上服务器"));
  });

  it("validates the account form", () => {
    const ok = { server: "http://x", email: "a@b.cn", password: "12345678", family: "", deviceName: "d" };
    expect(validateAccount(ok, "signup")).toEqual({});
    expect(validateAccount({ ...ok, password: "1234567" }, "signup")).toEqual({ password: "sync.err.password" });
    expect(validateAccount({ ...ok, password: "1" }, "login")).toEqual({});
    expect(validateAccount({ ...ok, deviceName: " " }, "login")).toEqual({ deviceName: "sync.err.deviceName" });
  });
});

describe("the header's sync indicator", () => {
  it("says nothing for a device that does not sync; offline, waiting or synced otherwise", () => {
    expect(syncState(null)).toBeNull();
    expect(syncState(SIGNED_OUT)).toBeNull();
    expect(syncState(view({ enabled: false }))).toBeNull();
    expect(syncState(view({ last_error: "down", pending: 3 }))).toEqual({ state: "offline" });
    expect(syncState(view({ pending: 3 }))).toEqual({ state: "pending", count: 3 });
    expect(syncState(view({ last_sync_at: null }))).toEqual({ state: "pending", count: 0 });
    expect(syncState(view())).toEqual({ state: "synced", at: "2026-11-27T06:05:00Z" });
    expect(formatSyncTime("2026-11-27T06:05:00Z", "en", "Asia/Shanghai")).toBe("11/27, 14:05");
    expect(formatSyncTime("soon", "en")).toBeNull();
  });

  it("shows on every screen's header and follows a change at once", async () => {
    vi.mocked(api.syncView).mockResolvedValue(view({ last_sync_at: "2026-11-27T06:05:00Z" }));
    renderWithI18n(<Header />);
    const dot = await screen.findByTestId("sync-indicator");
    expect(dot).toHaveAttribute("data-state", "synced");
    expect(dot).toHaveTextContent("已同步");
    expect(dot.getAttribute("title")).toMatch(/^家庭同步：已同步 \d\d:05$/);
    act(() => announceSync(view({ last_error: "the sync server cannot be reached" })));
    expect(screen.getByTestId("sync-indicator")).toHaveAttribute("data-state", "offline");
    expect(screen.getByTestId("sync-indicator")).toHaveTextContent("离线");
    act(() => announceSync(view({ enabled: false })));
    expect(screen.queryByTestId("sync-indicator")).not.toBeInTheDocument();
  });

  it("a device outside the window (no core) shows no indicator", async () => {
    vi.mocked(api.syncView).mockRejectedValue("no core");
    renderWithI18n(<Header />);
    await waitFor(() => expect(api.syncView).toHaveBeenCalled());
    expect(screen.queryByTestId("sync-indicator")).not.toBeInTheDocument();
  });
});

describe("a tablet joins a family with a code", () => {
  it("first run offers it beside setting up a new family", async () => {
    const user = userEvent.setup();
    renderWithI18n(<Setup onDone={() => {}} />);
    await user.click(screen.getByTestId("setup-join"));
    expect(screen.getByTestId("join-family")).toBeInTheDocument();
    expect(screen.queryByTestId("setup-submit")).not.toBeInTheDocument();
    await user.click(screen.getByTestId("join-cancel"));
    expect(screen.getByTestId("setup-submit")).toBeInTheDocument();
  });

  it("checks the code, joins, and goes on to the family's children", async () => {
    vi.mocked(api.syncJoin).mockResolvedValue({ family_id: "fam-1", device_id: "dev-tab" });
    const onJoined = vi.fn();
    const user = userEvent.setup();
    renderWithI18n(<JoinFamily onJoined={onJoined} onCancel={() => {}} />);
    await user.type(screen.getByTestId("join-server"), "http://127.0.0.1:8787");
    await user.type(screen.getByTestId("join-code"), "1234");
    await user.click(screen.getByTestId("join-submit"));
    expect(screen.getByText("配对码是 8 位数字。")).toBeInTheDocument();
    expect(api.syncJoin).not.toHaveBeenCalled();
    await user.type(screen.getByTestId("join-code"), " 5678");
    await user.click(screen.getByTestId("join-submit"));
    expect(api.syncJoin).toHaveBeenCalledWith("http://127.0.0.1:8787", { code: "12345678", device_name: "tablet" });
    await waitFor(() => expect(onJoined).toHaveBeenCalled());
  });

  it("a wrong code is said and the form stays", async () => {
    vi.mocked(api.syncJoin).mockRejectedValue("邮箱、密码或配对码不对，或者已经过期。请检查后再试。");
    const onJoined = vi.fn();
    const user = userEvent.setup();
    renderWithI18n(<JoinFamily onJoined={onJoined} onCancel={() => {}} />, "zh-CN");
    await user.type(screen.getByTestId("join-server"), "http://s");
    await user.type(screen.getByTestId("join-code"), "1234-5678");
    await user.click(screen.getByTestId("join-submit"));
    expect(await screen.findByTestId("join-error")).toHaveTextContent("配对码不对");
    expect(onJoined).not.toHaveBeenCalled();
    expect(screen.getByTestId("join-submit")).toBeEnabled();
  });

  it("validates server, code and name", () => {
    expect(validateJoin("http://s", "1234 5678", "tablet")).toEqual({});
    expect(validateJoin("s", "123", "")).toEqual({ server: "sync.err.server", code: "sync.err.code", deviceName: "sync.err.deviceName" });
  });
});
