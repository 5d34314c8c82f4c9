/**
 * Typed layer over the Tauri commands of the Rust core.
 *
 * One function per command. Argument keys are camelCase here; Tauri maps them
 * to the Rust snake_case parameter names. Returned structs keep the Rust
 * snake_case field names. Every function rejects with a plain-language
 * string that can be shown to the user as-is.
 */
import { invoke } from "@tauri-apps/api/core";
import { errorText } from "./errors";

export type ProfileKind = "parent" | "child";
export type Lang = "zh" | "en";
export type Locale = "zh-CN" | "en";

export interface Profile {
  id: string;
  kind: ProfileKind;
  name: string;
  grade: number | null;
  locale: string;
  time_zone: string;
  has_pin: boolean;
  created_at: string;
  updated_at: string;
}

export interface Material {
  id: string;
  slug: string | null;
  source: "builtin" | "custom";
  lang: Lang;
  title: string;
  author: string | null;
  dynasty: string | null;
  grade: number | null;
  level: number | null;
  body: string;
  created_at: string;
  updated_at: string;
}

export interface MaterialFilter {
  lang?: Lang | null;
  grade?: number | null;
  search?: string | null;
}

export interface NewProfile {
  kind: ProfileKind;
  name: string;
  grade?: number | null;
  pin?: string | null;
  locale?: string | null;
  time_zone?: string | null;
}

export interface NewMaterial {
  lang: Lang;
  title: string;
  body: string;
  author?: string | null;
  grade?: number | null;
}

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  fix: string | null;
}

export interface AppStatus {
  first_run: boolean;
  locale: Locale;
  data_dir: string;
  schema_version: number;
}

async function call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    // Always reject with a string, whatever shape the error had.
    throw errorText(e);
  }
}

export function appStatus(): Promise<AppStatus> {
  return call<AppStatus>("app_status");
}

export function profilesList(): Promise<Profile[]> {
  return call<Profile[]>("profiles_list");
}

export function setupFamily(parent: NewProfile, child: NewProfile): Promise<Profile[]> {
  return call<Profile[]>("setup_family", { parent, child });
}

export function profilesAdd(profile: NewProfile): Promise<Profile> {
  return call<Profile>("profiles_add", { profile });
}

export function parentUnlock(profileId: string, pin: string): Promise<null> {
  return call<null>("parent_unlock", { profileId, pin });
}

export function materialsList(filter: MaterialFilter): Promise<Material[]> {
  return call<Material[]>("materials_list", { filter });
}

export function materialsAdd(material: NewMaterial, createdBy: string | null): Promise<Material> {
  return call<Material>("materials_add", { material, createdBy });
}

export function localeSet(locale: Locale): Promise<null> {
  return call<null>("locale_set", { locale });
}

export function doctor(): Promise<Check[]> {
  return call<Check[]>("doctor");
}
