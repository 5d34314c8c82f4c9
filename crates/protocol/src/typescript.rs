//! Rendering the UI's TypeScript from the types: one `export type` per type,
//! in one module, in the order they are added. The file itself is written
//! and checked by a test of `deskmate-app` (the crate that sees every type
//! the UI receives); this module only renders text.

use ts_rs::{Config, TS};

use crate::{agui, chat, check, error, family, models, practice, routine, status, sync};

/// How the types are rendered: 64-bit integers are plain `number`s (the
/// core's are counts, bytes and seconds, well inside 2^53).
pub fn config() -> Config {
    Config::new().with_large_int("number")
}

/// A TypeScript module being put together.
#[derive(Debug, Default)]
pub struct Module {
    parts: Vec<String>,
}

impl Module {
    /// A module that starts with `header` (a comment saying where it comes from).
    pub fn new(header: &str) -> Self {
        Self {
            parts: vec![header.trim_end().to_string()],
        }
    }

    /// Adds `export type T = …;`.
    pub fn add<T: TS + ?Sized>(&mut self) -> &mut Self {
        self.parts.push(format!("export {}", T::decl(&config())));
        self
    }

    /// Adds hand-written TypeScript (a section comment, a constant).
    pub fn raw(&mut self, text: &str) -> &mut Self {
        self.parts.push(text.trim_end().to_string());
        self
    }

    /// Adds `export const NAME = [...] as const;` and `export type TYPE`, the
    /// union of its strings (e.g. every error code the core can send).
    pub fn strings(&mut self, name: &str, type_name: &str, values: &[&str]) -> &mut Self {
        let items: Vec<String> = values.iter().map(|v| format!("  {v:?},")).collect();
        self.parts.push(format!(
            "export const {name} = [\n{}\n] as const;\n\nexport type {type_name} = (typeof {name})[number];",
            items.join("\n")
        ));
        self
    }

    /// The module's text.
    pub fn render(&self) -> String {
        let mut out = self.parts.join("\n\n");
        out.push('\n');
        out
    }
}

/// Adds this crate's views, errors and small events. The event stream
/// ([`crate::events`]) and the payloads that mirror core types
/// ([`crate::lamp`], [`crate::voice`], the verdict in [`crate::practice`])
/// are added by `deskmate-app`'s test beside the core types they belong
/// with, so `ui/src/protocol.ts` keeps its sections.
pub fn add_protocol_types(module: &mut Module) {
    module
        .raw("// The wire error")
        .add::<error::WireError>()
        .raw("// App status")
        .add::<status::AppStatus>()
        .raw("// Chat")
        .add::<chat::Thread>()
        .add::<chat::ToolCallStatus>()
        .add::<chat::StoredToolCall>()
        .add::<chat::TodoStatus>()
        .add::<chat::Todo>()
        .add::<chat::ChatRole>()
        .add::<chat::ToolCallRef>()
        .add::<chat::MessageView>()
        .add::<chat::ChatRunStatus>()
        .add::<chat::RunSummary>()
        .add::<chat::PendingApproval>()
        .add::<chat::ApprovalDecision>()
        .add::<chat::ApprovalAnswer>()
        .add::<chat::SubagentRunView>()
        .add::<chat::ThreadView>()
        .add::<chat::RunIds>()
        .add::<chat::LlmSettingsView>()
        .add::<chat::ModelNoticeView>()
        .add::<family::KeepsakeFormat>()
        .add::<family::GoalOutcome>()
        .add::<family::KeepsakeWritten>()
        .add::<agui::JsonPatchOpKind>()
        .add::<agui::JsonPatchOp>()
        .add::<agui::Interrupt>()
        .add::<agui::RunFinishedOutcome>()
        .add::<agui::AgUiEvent>()
        .raw("// Practice events")
        .add::<practice::TaskId>()
        .add::<practice::LevelEvent>()
        .add::<practice::PartialEvent>()
        .add::<practice::ReviewsDueEvent>()
        .raw("// Offline speech models")
        .add::<models::ModelStatus>()
        .add::<models::ModelPhase>()
        .add::<models::ModelProgress>()
        .raw("// The CLI's check output")
        .add::<check::CheckedError>()
        .add::<check::CheckedLine>()
        .add::<check::LineFailure>()
        .add::<check::StageTimings>()
        .raw("// Family sync")
        .add::<sync::RecordKind>()
        .add::<sync::RoundView>()
        .add::<sync::SyncView>()
        .add::<sync::SignedIn>()
        .add::<sync::SignupRequest>()
        .add::<sync::LoginRequest>()
        .add::<sync::PairRequest>()
        .add::<sync::PairingCode>()
        .add::<sync::AccountStatus>()
        .add::<sync::DeviceView>()
        .raw("// A child as a whole, for parents: questions with a chart, usage, limits, notices, export and delete")
        .add::<family::ChartKind>()
        .add::<family::ChartSeries>()
        .add::<family::Chart>()
        .add::<family::ProgressAnswer>()
        .add::<family::DayUsage>()
        .add::<family::RunUsage>()
        .add::<family::UsageReport>()
        .add::<family::QuietHours>()
        .add::<family::Limits>()
        .add::<family::NoticeKind>()
        .add::<family::Notice>()
        .add::<family::ReplacedReply>()
        .add::<family::TableRowCount>()
        .add::<family::ChildExported>()
        .add::<family::ChildDeleted>()
        .raw("// Parents' routines")
        .add::<routine::NodePosition>()
        .add::<routine::NodeKind>()
        .add::<routine::RoutineNode>()
        .add::<routine::Branch>()
        .add::<routine::Routine>()
        .add::<routine::RoutineProblem>()
        .add::<routine::RoutinePart>()
        .add::<routine::RoutineParts>()
        .add::<routine::RoutineEvent>()
        .add::<routine::RoutineStep>()
        .add::<routine::RoutineRunView>();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_serde_shapes() {
        let mut m = Module::new("// test");
        add_protocol_types(&mut m);
        let ts = m.render();
        // The tag and camelCase fields serde writes, optional fields as optional.
        assert!(ts.contains("\"type\": \"RUN_ERROR\""), "{ts}");
        assert!(ts.contains("parentMessageId?: string"), "{ts}");
        // u64 byte counts are numbers, not bigint.
        assert!(ts.contains("done_bytes: number"), "{ts}");
        m.strings("CODES", "Code", &["a.b", "c"]);
        assert!(m.render().ends_with(
            "export const CODES = [\n  \"a.b\",\n  \"c\",\n] as const;\n\nexport type Code = (typeof CODES)[number];\n"
        ));
        assert!(ts.contains("export type WireError = { code: string, message: string, params: Record<string, unknown>, }"), "{ts}");
    }
}
