import { useState, type FormEvent } from "react";
import * as companion from "../../companionApi";
import type { McpServer, McpToolView, McpTransport } from "../../api";
import { useChildren } from "../../components/ChildPicker";
import { errorText } from "../../errors";
import { useT } from "../../i18n";
import { useRecords } from "./useRecords";

type Kind = "stdio" | "http";

/** A command line split into words; "quoted words" stay together. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

function transportWords(t: McpTransport): string {
  return t.type === "stdio" ? [t.command, ...t.args].join(" ") : t.url;
}

/**
 * "工具 / Tools": the MCP servers the companion may use as extra tools — a
 * command started on this computer (stdio) or a streamable HTTP address.
 * Each server: on or off, trusted (its tools run without asking a parent)
 * or not, which children's companions may use it, its tools, remove. A new
 * server is allowed for no child until a parent ticks one. The same calls
 * as `deskmate mcp`.
 */
export function McpTab() {
  const t = useT();
  const [error, setError] = useState<string | null>(null);
  const { records: servers, change } = useRecords<McpServer>("all", () => companion.mcpServers(), (e) => setError(t("mcp.error", { error: e })), setError);
  const children = useChildren(setError).children ?? [];
  const [tools, setTools] = useState<Record<string, McpToolView[] | "loading">>({});
  const [name, setName] = useState("");
  const [kind, setKind] = useState<Kind>("stdio");
  const [command, setCommand] = useState("");
  const [url, setUrl] = useState("");
  const [token, setToken] = useState("");
  const [trusted, setTrusted] = useState(false);

  async function add(e: FormEvent) {
    e.preventDefault();
    const words = splitCommand(command);
    const transport: McpTransport =
      kind === "stdio" ? { type: "stdio", command: words[0] ?? "", args: words.slice(1), env: {} } : { type: "http", url: url.trim() };
    const ok = await change(() => companion.mcpAdd(name.trim(), transport, trusted, kind === "http" && token.trim() ? token.trim() : null));
    if (ok) {
      setName("");
      setCommand("");
      setUrl("");
      setToken("");
      setTrusted(false);
    }
  }

  async function listTools(server: string) {
    setError(null);
    setTools((all) => ({ ...all, [server]: "loading" }));
    try {
      const list = (await companion.mcpTools(server)) ?? [];
      setTools((all) => ({ ...all, [server]: list }));
    } catch (e) {
      setTools((all) => {
        const rest = { ...all };
        delete rest[server];
        return rest;
      });
      setError(errorText(e));
    }
  }

  const canAdd = name.trim() !== "" && (kind === "stdio" ? command.trim() !== "" : url.trim() !== "");

  return (
    <div className="stack" data-testid="mcp-screen">
      <p className="muted">{t("mcp.intro")}</p>
      {error && (
        <p className="banner banner-error" role="alert" data-testid="mcp-error">
          {error}
        </p>
      )}
      {servers && servers.length === 0 && (
        <p className="empty" data-testid="mcp-empty">
          {t("mcp.empty")}
        </p>
      )}
      {servers && servers.length > 0 && (
        <ul className="stack" data-testid="mcp-servers">
          {servers.map((s) => {
            const listed = tools[s.name];
            return (
              <li key={s.name} className="card" data-testid="mcp-server" data-name={s.name}>
                <div className="section-head">
                  <div>
                    <strong>{s.name}</strong> <span className="tag">{t(`mcp.kind.${s.transport.type}`)}</span>
                    <p className="small muted" data-testid="mcp-transport">
                      {transportWords(s.transport)}
                    </p>
                  </div>
                  <button type="button" className="btn btn-secondary" data-testid="mcp-remove" onClick={() => void change(() => companion.mcpRemove(s.name))}>
                    {t("mcp.remove")}
                  </button>
                </div>
                <label>
                  <input
                    type="checkbox"
                    data-testid="mcp-enabled"
                    checked={s.enabled}
                    onChange={(e) => void change(() => companion.mcpSet(s.name, e.target.checked, s.trusted))}
                  />{" "}
                  {t("mcp.enabled")}
                </label>{" "}
                <label>
                  <input
                    type="checkbox"
                    data-testid="mcp-trusted"
                    checked={s.trusted}
                    onChange={(e) => void change(() => companion.mcpSet(s.name, s.enabled, e.target.checked))}
                  />{" "}
                  {t("mcp.trusted")}
                </label>
                <fieldset className="stack">
                  <legend className="field-label">{t("mcp.allowedFor")}</legend>
                  {children.length === 0 && <span className="small muted">{t("goals.noChildren")}</span>}
                  {children.map((c) => (
                    <label key={c.id}>
                      <input
                        type="checkbox"
                        data-testid={`mcp-allow-${c.id}`}
                        checked={s.profiles.includes(c.id)}
                        onChange={(e) => void change(() => companion.mcpAllow(c.id, s.name, e.target.checked))}
                      />{" "}
                      {c.name}
                    </label>
                  ))}
                </fieldset>
                <button
                  type="button"
                  className="btn btn-secondary"
                  data-testid="mcp-tools"
                  disabled={listed === "loading"}
                  onClick={() => void listTools(s.name)}
                >
                  {listed === "loading" ? t("mcp.connecting") : t("mcp.tools")}
                </button>
                {Array.isArray(listed) && (
                  <ul data-testid="mcp-tool-list">
                    {listed.length === 0 && <li className="small muted">{t("mcp.noTools")}</li>}
                    {listed.map((tool) => (
                      <li key={tool.name} data-testid="mcp-tool">
                        <code>{tool.name}</code> <span className="small muted">{tool.description}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <form className="card stack" onSubmit={add} data-testid="mcp-add-form">
        <h2 className="section-title">{t("mcp.addTitle")}</h2>
        <label className="field-label" htmlFor="mcp-name">
          {t("mcp.name")}
        </label>
        <input id="mcp-name" data-testid="mcp-name" className="input" value={name} placeholder="files" onChange={(e) => setName(e.target.value)} />
        <p className="small muted">{t("mcp.nameHint")}</p>
        <div role="radiogroup" aria-label={t("mcp.how")}>
          {(["stdio", "http"] as Kind[]).map((k) => (
            <label key={k}>
              <input type="radio" name="mcp-kind" data-testid={`mcp-kind-${k}`} checked={kind === k} onChange={() => setKind(k)} />{" "}
              {t(`mcp.kind.${k}`)}
            </label>
          ))}
        </div>
        {kind === "stdio" ? (
          <>
            <label className="field-label" htmlFor="mcp-command">
              {t("mcp.command")}
            </label>
            <input
              id="mcp-command"
              data-testid="mcp-command"
              className="input"
              value={command}
              placeholder="npx -y @modelcontextprotocol/server-filesystem /home/me/作业"
              onChange={(e) => setCommand(e.target.value)}
            />
          </>
        ) : (
          <>
            <label className="field-label" htmlFor="mcp-url">
              {t("mcp.url")}
            </label>
            <input
              id="mcp-url"
              data-testid="mcp-url"
              className="input"
              value={url}
              placeholder="http://127.0.0.1:3001/mcp"
              onChange={(e) => setUrl(e.target.value)}
            />
            <label className="field-label" htmlFor="mcp-token">
              {t("mcp.token")}
            </label>
            <input id="mcp-token" data-testid="mcp-token" className="input" type="password" value={token} onChange={(e) => setToken(e.target.value)} />
          </>
        )}
        <label>
          <input type="checkbox" data-testid="mcp-new-trusted" checked={trusted} onChange={(e) => setTrusted(e.target.checked)} /> {t("mcp.trusted")}
        </label>
        <button type="submit" className="btn btn-primary" data-testid="mcp-add" disabled={!canAdd}>
          {t("mcp.add")}
        </button>
      </form>
    </div>
  );
}
