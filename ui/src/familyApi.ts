/**
 * Typed layer over the parent area's commands for a child as a whole (issue
 * 20): questions about progress answered with a chart, usage and daily
 * limits, the notices kept for the parent (a replaced reply read with its
 * conversation), and a child's data exported or deleted. Kept beside
 * ./api.ts (whose `call` it uses: the same rejection as plain words), like
 * ./companionApi.ts. The same core calls as `deskmate ask|usage|limits|
 * notices|profiles export|delete`.
 */
import { call } from "./api";
import type { ChildDeleted, ChildExported, Limits, Notice, ProgressAnswer, ReplacedReply, UsageReport } from "./protocol";

export function ask(profileId: string, question: string): Promise<ProgressAnswer> {
  return call<ProgressAnswer>("ask", { profileId, question });
}

export function usage(profileId: string, days: number): Promise<UsageReport> {
  return call<UsageReport>("usage", { profileId, days });
}

export function limitsGet(profileId: string): Promise<Limits> {
  return call<Limits>("limits_get", { profileId });
}

/** Saves a child's limits; resolves with them as kept. */
export function limitsSet(profileId: string, limits: Limits): Promise<Limits> {
  return call<Limits>("limits_set", { profileId, limits });
}

export function noticesList(profileId: string | null, unread: boolean): Promise<Notice[]> {
  return call<Notice[]>("notices_list", { profileId, unread });
}

export function noticeRead(noticeId: string): Promise<null> {
  return call<null>("notice_read", { noticeId });
}

export function noticeReplacedReply(noticeId: string): Promise<ReplacedReply> {
  return call<ReplacedReply>("notice_replaced_reply", { noticeId });
}

/** Where an export goes unless the parent types another path (Downloads, or home). */
export function exportDefaultPath(profileId: string): Promise<string> {
  return call<string>("export_default_path", { profileId });
}

/** Checks the parent's PIN, then writes the child's zip to `path`. */
export function profileExport(profileId: string, parentId: string, pin: string, path: string): Promise<ChildExported> {
  return call<ChildExported>("profile_export", { profileId, parentId, pin, path });
}

/** Checks the parent's PIN, then deletes the child with all their data. */
export function profileDelete(profileId: string, parentId: string, pin: string): Promise<ChildDeleted> {
  return call<ChildDeleted>("profile_delete", { profileId, parentId, pin });
}
