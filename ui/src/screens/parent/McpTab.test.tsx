import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import * as companion from "../../companionApi";
import type { McpServer, McpTransport } from "../../api";
import { profile, renderWithI18n } from "../../test/helpers";
import { McpTab, splitCommand } from "./McpTab";

vi.mock("../../api");
vi.mock("../../companionApi");

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明" });

const server = (name: string, transport: McpTransport, trusted = false): McpServer => ({
  name,
  transport,
  enabled: true,
  trusted,
  profiles: [],
  timeout_secs: null,
  has_token: false,
});

describe("MCP servers", () => {
  // The servers as the core holds them.
  let held: McpServer[];

  beforeEach(() => {
    held = [];
    vi.mocked(api.profilesList).mockResolvedValue([mum, ming]);
    vi.mocked(companion.mcpServers).mockImplementation(async () => held.map((s) => ({ ...s, profiles: [...s.profiles] })));
    vi.mocked(companion.mcpAdd).mockImplementation(async (name, transport, trusted, token) => {
      if (held.some((s) => s.name === name)) {
        throw { code: "conflict", message: `there is already an MCP server named "${name}"`, params: {} };
      }
      const s = { ...server(name, transport, trusted), has_token: token !== null };
      held.push(s);
      return s;
    });
    vi.mocked(companion.mcpAllow).mockImplementation(async (p, name, allow) => {
      const s = held.find((x) => x.name === name)!;
      s.profiles = s.profiles.filter((x) => x !== p).concat(allow ? [p] : []);
      return s;
    });
    vi.mocked(companion.mcpSet).mockImplementation(async (name, enabled, trusted) => {
      const s = held.find((x) => x.name === name)!;
      Object.assign(s, { enabled, trusted });
      return s;
    });
    vi.mocked(companion.mcpRemove).mockImplementation(async (name) => {
      held = held.filter((s) => s.name !== name);
      return null;
    });
  });

  it("splits a command line into the command and its arguments", () => {
    expect(splitCommand(' npx -y @modelcontextprotocol/server-filesystem "/home/me/my files" ')).toEqual([
      "npx",
      "-y",
      "@modelcontextprotocol/server-filesystem",
      "/home/me/my files",
    ]);
    expect(splitCommand("")).toEqual([]);
  });

  it("adds a stdio server and an HTTP one, allows one for a child, trusts it, lists its tools and removes it", async () => {
    const user = userEvent.setup();
    vi.mocked(companion.mcpTools).mockResolvedValue([
      { name: "mcp__files__read_file", description: "Read a file" },
      { name: "mcp__files__list_directory", description: "List a folder" },
    ]);
    renderWithI18n(<McpTab />);
    expect(await screen.findByTestId("mcp-empty")).toBeInTheDocument();

    await user.type(screen.getByTestId("mcp-name"), "files");
    await user.type(screen.getByTestId("mcp-command"), "npx -y @modelcontextprotocol/server-filesystem /home/me");
    await user.click(screen.getByTestId("mcp-add"));
    expect(companion.mcpAdd).toHaveBeenCalledWith(
      "files",
      { type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"], env: {} },
      false,
      null,
    );
    await screen.findByTestId("mcp-server");
    expect(screen.getByTestId("mcp-name")).toHaveValue("");

    await user.click(screen.getByTestId("mcp-kind-http"));
    await user.type(screen.getByTestId("mcp-name"), "web");
    await user.type(screen.getByTestId("mcp-url"), "http://127.0.0.1:3001/mcp");
    await user.type(screen.getByTestId("mcp-token"), "s3cret");
    await user.click(screen.getByTestId("mcp-add"));
    expect(companion.mcpAdd).toHaveBeenLastCalledWith("web", { type: "http", url: "http://127.0.0.1:3001/mcp" }, false, "s3cret");
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(2));
    expect(screen.getAllByTestId("mcp-transport").map((e) => e.textContent)).toEqual([
      "npx -y @modelcontextprotocol/server-filesystem /home/me",
      "http://127.0.0.1:3001/mcp",
    ]);

    const files = screen.getAllByTestId("mcp-server")[0];
    const allow = within(files).getByTestId("mcp-allow-c1");
    expect(allow).not.toBeChecked();
    await user.click(allow);
    expect(companion.mcpAllow).toHaveBeenCalledWith("c1", "files", true);
    await waitFor(() => expect(within(screen.getAllByTestId("mcp-server")[0]).getByTestId("mcp-allow-c1")).toBeChecked());
    await user.click(within(screen.getAllByTestId("mcp-server")[0]).getByTestId("mcp-trusted"));
    expect(companion.mcpSet).toHaveBeenCalledWith("files", true, true);
    await waitFor(() => expect(within(screen.getAllByTestId("mcp-server")[0]).getByTestId("mcp-trusted")).toBeChecked());

    await user.click(within(screen.getAllByTestId("mcp-server")[0]).getByTestId("mcp-tools"));
    expect(companion.mcpTools).toHaveBeenCalledWith("files");
    const tools = await screen.findAllByTestId("mcp-tool");
    expect(tools.map((t) => t.textContent)).toEqual(["mcp__files__read_file Read a file", "mcp__files__list_directory List a folder"]);

    await user.click(within(screen.getAllByTestId("mcp-server")[0]).getByTestId("mcp-remove"));
    expect(companion.mcpRemove).toHaveBeenCalledWith("files");
    await waitFor(() => expect(screen.getAllByTestId("mcp-server").map((s) => s.dataset.name)).toEqual(["web"]));
  });

  it("says plainly when a server cannot be started, and when a name is taken", async () => {
    const user = userEvent.setup();
    held = [server("broken", { type: "stdio", command: "no-such-server", args: [], env: {} })];
    vi.mocked(companion.mcpTools).mockRejectedValue({
      code: "mcp.server_failed",
      message: "the MCP server broken could not be started: there is no program no-such-server",
      params: {},
    });
    renderWithI18n(<McpTab />);
    await user.click(await screen.findByTestId("mcp-tools"));
    expect(await screen.findByTestId("mcp-error")).toHaveTextContent("工具服务器（MCP）没能启动或没有回应");
    expect(screen.queryByTestId("mcp-tool-list")).toBeNull();
    expect(screen.getByTestId("mcp-tools")).toBeEnabled();

    await user.type(screen.getByTestId("mcp-name"), "broken");
    await user.type(screen.getByTestId("mcp-command"), "node other.js");
    await user.click(screen.getByTestId("mcp-add"));
    await waitFor(() => expect(screen.getByTestId("mcp-error")).toHaveTextContent('already an MCP server named "broken"'));
    expect(screen.getByTestId("mcp-command")).toHaveValue("node other.js");
    expect(screen.getAllByTestId("mcp-server")).toHaveLength(1);
  });
});
