/**
 * Typed layer over the commands of what the companion knows (issue 19):
 * the family's knowledge bases, the memories of each child and the MCP
 * servers (the parent area's screens), and reading picked or dropped files
 * into the `FileUpload`s that knowledge bases and chat attachments take.
 * Kept beside ./api.ts (whose `call` it uses: the same rejection as plain
 * words) so those screens' commands live in one file of their own.
 */
import { Channel } from "@tauri-apps/api/core";
import { call, readPhotos } from "./api";
import type {
  FileUpload,
  KnowledgeBaseView,
  KnowledgeDocumentView,
  KnowledgeProgress,
  McpServer,
  McpToolView,
  McpTransport,
  Memory,
  MemoryKind,
} from "./protocol";

/** Reads picked or dropped files into uploads (base64, as the core takes them). */
export async function readUploads(files: File[]): Promise<FileUpload[]> {
  return (await readPhotos(files)).map((f) => ({ name: f.name, data_base64: f.data }));
}

// Knowledge bases

export function kbList(): Promise<KnowledgeBaseView[]> {
  return call<KnowledgeBaseView[]>("kb_list");
}

export function kbDocuments(base: string): Promise<KnowledgeDocumentView[]> {
  return call<KnowledgeDocumentView[]>("kb_documents", { base });
}

/**
 * Adds documents to a base (made when new); `onProgress` hears each
 * document's embedding through a Tauri `Channel`. A file that cannot be
 * read stops the add before anything is stored.
 */
export function kbAdd(
  base: string,
  files: FileUpload[],
  onProgress: (p: KnowledgeProgress) => void,
): Promise<KnowledgeDocumentView[]> {
  return call<KnowledgeDocumentView[]>("kb_add", () => {
    const channel = new Channel<KnowledgeProgress>();
    channel.onmessage = onProgress;
    return { base, files, onProgress: channel };
  });
}

/** Removes one document (`source`), or the whole base when `source` is null; resolves to how many documents went. */
export function kbRemove(base: string, source: string | null): Promise<number> {
  return call<number>("kb_remove", { base, source });
}

// Memories of a child

export function memoriesList(profileId: string): Promise<Memory[]> {
  return call<Memory[]>("memories_list", { profileId });
}

export function memoryAdd(profileId: string, kind: MemoryKind, text: string): Promise<Memory> {
  return call<Memory>("memory_add", { profileId, kind, text });
}

export function memoryEdit(profileId: string, memoryId: string, text: string, kind: MemoryKind | null): Promise<Memory> {
  return call<Memory>("memory_edit", { profileId, memoryId, text, kind });
}

export function memoryDelete(profileId: string, memoryId: string): Promise<Memory> {
  return call<Memory>("memory_delete", { profileId, memoryId });
}

// MCP servers

export function mcpServers(): Promise<McpServer[]> {
  return call<McpServer[]>("mcp_servers");
}

/** Adds a server (on, allowed for no child yet); a token goes to the OS keyring. */
export function mcpAdd(name: string, transport: McpTransport, trusted: boolean, token: string | null): Promise<McpServer> {
  return call<McpServer>("mcp_add", { name, transport, trusted, token });
}

export function mcpRemove(name: string): Promise<null> {
  return call<null>("mcp_remove", { name });
}

/** Lets a child's companion use the server (or no longer). */
export function mcpAllow(profileId: string, name: string, allow: boolean): Promise<McpServer> {
  return call<McpServer>("mcp_allow", { profileId, name, allow });
}

export function mcpSet(name: string, enabled: boolean, trusted: boolean): Promise<McpServer> {
  return call<McpServer>("mcp_set", { name, enabled, trusted });
}

/** Starts (or reaches) the server and lists its tools, named as the companion calls them. */
export function mcpTools(name: string): Promise<McpToolView[]> {
  return call<McpToolView[]>("mcp_tools", { name });
}
