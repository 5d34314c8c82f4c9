//! The subagents' stored runs as the chat screen shows them: each under the
//! lead's `task` call that started it, with its messages, tool calls and
//! what it cost — so a reopened thread still shows what every subagent did.

use deskmate_agent::persist;
use deskmate_protocol as protocol;
use deskmate_store::{Store, StoreResult};

use super::{message_view, run_status};

/// The window's view of each stored subagent run, in the order they started.
pub(super) fn subagent_runs(
    store: &Store,
    children: Vec<persist::ChildRunView>,
) -> StoreResult<Vec<protocol::SubagentRunView>> {
    children
        .into_iter()
        .map(|child| {
            let (usage, cost_usd, model_calls) = persist::run_usage(store, &child.run.id)?;
            Ok(protocol::SubagentRunView {
                subagent_type: child.run.agent.unwrap_or_default(),
                tool_call_id: child.run.parent_tool_call_id.unwrap_or_default(),
                status: run_status(child.run.status),
                model: child.run.model,
                run_id: child.run.id,
                messages: child.messages.into_iter().map(message_view).collect(),
                tool_calls: child.tool_calls,
                model_calls,
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
                cost_usd,
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use deskmate_agent::persist::{self, RunStatus, ToolCallStatus};
    use deskmate_llm::{Message, ToolCall, Usage};
    use deskmate_protocol as protocol;

    use crate::{Config, Deskmate};

    fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn a_stored_subagent_run_is_in_the_view_under_its_task_call() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let store = app.store();
        let thread = persist::create_thread(store, None, "静夜思").unwrap();
        let lead = persist::start_run(store, &thread.id, "openai:lead").unwrap();
        let task = call(
            "task-1",
            "task",
            r#"{"description":"讲讲静夜思","subagent_type":"poetry-tutor"}"#,
        );
        persist::insert_message(
            store,
            &thread.id,
            Some(&lead.id),
            None,
            &Message::user("讲讲静夜思"),
        )
        .unwrap();
        persist::insert_message(
            store,
            &thread.id,
            Some(&lead.id),
            None,
            &Message::assistant("", vec![task]),
        )
        .unwrap();

        // The subagent's run: the task, a read_file call and its result, its answer.
        let child = persist::start_child_run(
            store,
            &thread.id,
            "openai:tutor",
            &lead.id,
            "task-1",
            "poetry-tutor",
        )
        .unwrap();
        let read = call("read-1", "read_file", r#"{"path":"/poems/jingyesi.md"}"#);
        for m in [
            Message::user("讲讲静夜思"),
            Message::assistant("我先读一下这首诗。", vec![read]),
        ] {
            persist::insert_message(store, &thread.id, Some(&child.id), None, &m).unwrap();
        }
        persist::finish_tool_call(
            store,
            &thread.id,
            Some(&child.id),
            "read-1",
            "床前明月光，疑是地上霜。",
            ToolCallStatus::Completed,
        )
        .unwrap();
        persist::insert_message(
            store,
            &thread.id,
            Some(&child.id),
            None,
            &Message::assistant("李白看见月光，想起了家乡。", vec![]),
        )
        .unwrap();
        for input_tokens in [120, 180] {
            persist::record_llm_call(
                store,
                &persist::LlmCallRecord {
                    thread_id: thread.id.clone(),
                    run_id: child.id.clone(),
                    model: "openai:tutor".into(),
                    status: "completed",
                    usage: Usage {
                        input_tokens,
                        output_tokens: 15,
                        cached_input_tokens: 0,
                    },
                    cost_usd: Some(0.001),
                    duration_ms: 5,
                    error: None,
                },
            )
            .unwrap();
        }
        persist::finish_run(store, &child.id, RunStatus::Completed, None).unwrap();
        persist::finish_tool_call(
            store,
            &thread.id,
            Some(&lead.id),
            "task-1",
            "李白看见月光，想起了家乡。",
            ToolCallStatus::Completed,
        )
        .unwrap();

        let view = app.chat().thread_view(&thread.id).unwrap();
        // The lead's messages stay the lead's: the subagent's are under its run.
        assert!(view
            .messages
            .iter()
            .all(|m| m.content != "我先读一下这首诗。"));
        assert_eq!(view.subagents.len(), 1);
        let sub = &view.subagents[0];
        assert_eq!(
            (
                sub.run_id.as_str(),
                sub.subagent_type.as_str(),
                sub.tool_call_id.as_str()
            ),
            (child.id.as_str(), "poetry-tutor", "task-1")
        );
        assert_eq!(sub.status, protocol::ChatRunStatus::Completed);
        assert_eq!(sub.model, "openai:tutor");
        let said: Vec<_> = sub
            .messages
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (protocol::ChatRole::User, "讲讲静夜思"),
                (protocol::ChatRole::Assistant, "我先读一下这首诗。"),
                (protocol::ChatRole::Tool, "床前明月光，疑是地上霜。"),
                (protocol::ChatRole::Assistant, "李白看见月光，想起了家乡。"),
            ]
        );
        let asked = sub.messages[1].tool_calls.as_ref().unwrap();
        assert_eq!(asked[0].name, "read_file");
        assert_eq!(sub.tool_calls.len(), 1);
        assert_eq!(sub.tool_calls[0].id, "read-1");
        assert_eq!(
            sub.tool_calls[0].status,
            protocol::ToolCallStatus::Completed
        );
        assert_eq!(
            sub.tool_calls[0].result.as_deref(),
            Some("床前明月光，疑是地上霜。")
        );
        assert_eq!(
            (sub.model_calls, sub.input_tokens, sub.output_tokens),
            (2, 300, 30)
        );
        assert!((sub.cost_usd - 0.002).abs() < 1e-9);
        // The lead's tool calls do not include the subagent's.
        assert!(view.tool_calls.iter().all(|c| c.id != "read-1"));
    }

    #[test]
    fn a_thread_without_subagents_has_none() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let thread = persist::create_thread(app.store(), None, "作业").unwrap();
        persist::insert_message(app.store(), &thread.id, None, None, &Message::user("你好"))
            .unwrap();
        assert!(app
            .chat()
            .thread_view(&thread.id)
            .unwrap()
            .subagents
            .is_empty());
    }
}
