//! Supervisor mode (seed 004): a model that, after each turn, names the
//! agent of the team who speaks next, as structured output `{"next": agent
//! | "__end__"}` (the arguments of a `choose_next` function), until it says
//! `__end__` or [`MAX_ROUNDS`] hand-offs were made. Each hand-off is a step
//! of the AG-UI stream (`STEP_STARTED` / `STEP_FINISHED` named after the
//! agent).
//!
//! The agents themselves are the caller's ([`Team`]): the app's are the
//! team in `agents/`; tests give scripted ones. A reply naming no agent of
//! the team ends the run with that said, rather than guessing.

use std::future::Future;

use deskmate_llm::{ChatRequest, LlmClient, Message, ToolSpec};
use deskmate_protocol::AgUiEvent;
use serde_json::{json, Value};

/// At most this many hand-offs per conversation.
pub const MAX_ROUNDS: usize = 25;

/// The function the supervisor calls with its choice.
pub const FUNCTION: &str = "choose_next";

/// The supervisor's word for "done".
pub const END: &str = "__end__";

/// The agents the supervisor hands the conversation to.
pub trait Team {
    /// Each agent's name and what it is for.
    fn agents(&self) -> Vec<(String, String)>;
    /// `agent` takes its turn on the conversation so far; its reply.
    fn turn(
        &mut self,
        agent: &str,
        conversation: &[Turn],
    ) -> impl Future<Output = Result<String, String>>;
}

/// One turn of the conversation: who spoke (`user` for the input) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub speaker: String,
    pub text: String,
}

/// How a supervised conversation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The supervisor said `__end__`.
    Done,
    /// [`MAX_ROUNDS`] hand-offs were made without `__end__`.
    RoundLimit,
    /// The supervisor's reply named no agent of the team (the reply).
    NoChoice(String),
}

/// The conversation and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Supervised {
    pub turns: Vec<Turn>,
    pub ending: Ending,
    pub rounds: usize,
}

impl Supervised {
    /// The ending in plain words (for the child's window and the CLI).
    pub fn ending_text(&self) -> String {
        match &self.ending {
            Ending::Done => "The supervisor finished the conversation.".into(),
            Ending::RoundLimit => {
                format!("Stopped after {MAX_ROUNDS} hand-offs without the supervisor finishing.")
            }
            Ending::NoChoice(reply) => {
                format!("Stopped: the supervisor named no agent of the team ({reply}).")
            }
        }
    }
}

/// The request asking who speaks next.
pub fn request(agents: &[(String, String)], turns: &[Turn]) -> ChatRequest {
    let names: Vec<Value> = agents
        .iter()
        .map(|(n, _)| Value::String(n.clone()))
        .chain([Value::String(END.into())])
        .collect();
    let roster: Vec<String> = agents.iter().map(|(n, d)| format!("- {n}: {d}")).collect();
    let conversation: Vec<String> = turns
        .iter()
        .map(|t| format!("[{}] {}", t.speaker, t.text))
        .collect();
    ChatRequest {
        system: Some(format!(
            "You supervise a team helping a child. After each turn choose who speaks next, \
             or {END} when the child's request is fully answered. Call {FUNCTION}.\nThe team:\n{}",
            roster.join("\n")
        )),
        messages: vec![Message::user(conversation.join("\n"))],
        tools: vec![ToolSpec {
            name: FUNCTION.into(),
            description: "Who speaks next.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"next": {"type": "string", "enum": names}},
                "required": ["next"],
                "additionalProperties": false
            }),
        }],
        max_tokens: Some(50),
        temperature: Some(0.0),
    }
}

/// The agent named in the supervisor's reply (function arguments or
/// text holding `{"next": …}`), if it is one of `agents` or [`END`].
pub fn choice(reply: &str, agents: &[(String, String)]) -> Option<String> {
    let json = reply
        .find('{')
        .zip(reply.rfind('}'))
        .filter(|(s, e)| s < e)
        .map(|(s, e)| &reply[s..=e])?;
    let v: Value = serde_json::from_str(json).ok()?;
    let next = v.get("next")?.as_str()?.trim();
    (next == END || agents.iter().any(|(n, _)| n == next)).then(|| next.to_string())
}

/// Runs a supervised conversation on `input`; every step goes to `emit`
/// (`STEP_STARTED`, the agent's reply as a text message, `STEP_FINISHED`).
/// A model that cannot be reached is an error; what was said before stays
/// in the error's words.
pub async fn supervise<T: Team>(
    model: &LlmClient,
    team: &mut T,
    input: &str,
    emit: &mut dyn FnMut(AgUiEvent),
) -> Result<Supervised, String> {
    let agents = team.agents();
    let mut turns = vec![Turn {
        speaker: "user".into(),
        text: input.into(),
    }];
    for rounds in 0..=MAX_ROUNDS {
        let reply = model
            .complete(&request(&agents, &turns))
            .await
            .map_err(|e| format!("the supervisor's model failed after {rounds} hand-offs: {e}"))?;
        let said = reply
            .tool_calls
            .iter()
            .find(|c| c.name == FUNCTION)
            .map(|c| c.arguments.clone())
            .unwrap_or(reply.text);
        let Some(next) = choice(&said, &agents) else {
            return Ok(Supervised {
                turns,
                ending: Ending::NoChoice(said.chars().take(200).collect()),
                rounds,
            });
        };
        if next == END {
            return Ok(Supervised {
                turns,
                ending: Ending::Done,
                rounds,
            });
        }
        if rounds == MAX_ROUNDS {
            break;
        }
        emit(AgUiEvent::StepStarted {
            step_name: next.clone(),
        });
        let text = team.turn(&next, &turns).await?;
        // The agent's reply as one AG-UI text message inside its step.
        let message_id = uuid::Uuid::now_v7().to_string();
        emit(AgUiEvent::TextMessageStart {
            message_id: message_id.clone(),
            role: "assistant".into(),
        });
        emit(AgUiEvent::TextMessageContent {
            message_id: message_id.clone(),
            delta: text.clone(),
        });
        emit(AgUiEvent::TextMessageEnd { message_id });
        turns.push(Turn {
            speaker: next.clone(),
            text,
        });
        emit(AgUiEvent::StepFinished { step_name: next });
    }
    Ok(Supervised {
        turns,
        ending: Ending::RoundLimit,
        rounds: MAX_ROUNDS,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskmate_llm::scripted::{openai, Reply, ScriptedServer};
    use deskmate_llm::{LlmConfig, ModelSpec};

    struct Scripted {
        asked: Vec<String>,
    }

    impl Team for Scripted {
        fn agents(&self) -> Vec<(String, String)> {
            vec![
                ("poet".into(), "explains poems".into()),
                ("quizzer".into(), "asks questions".into()),
            ]
        }

        async fn turn(&mut self, agent: &str, conversation: &[Turn]) -> Result<String, String> {
            self.asked.push(agent.into());
            Ok(format!("{agent} on turn {}", conversation.len()))
        }
    }

    fn client(server: &ScriptedServer) -> LlmClient {
        let mut config = LlmConfig::new(ModelSpec::parse("openai:gpt-4o-mini").unwrap());
        config.base_url = Some(server.base_url());
        config.retry.max_retries = 0;
        LlmClient::new(config).unwrap()
    }

    fn next(agent: &str) -> Reply {
        openai::tool_calls(
            None,
            &[("c", FUNCTION, &format!(r#"{{"next": "{agent}"}}"#))],
        )
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn the_supervisor_hands_the_conversation_on_until_it_ends_it() {
        let server = ScriptedServer::start(vec![next("poet"), next("quizzer"), next(END)]).unwrap();
        let mut team = Scripted { asked: vec![] };
        let mut events = vec![];
        let done = block_on(supervise(
            &client(&server),
            &mut team,
            "讲讲静夜思再考考我",
            &mut |e| events.push(e),
        ))
        .unwrap();
        assert_eq!(done.ending, Ending::Done);
        assert_eq!(done.rounds, 2);
        assert_eq!(team.asked, ["poet", "quizzer"]);
        assert_eq!(
            done.turns.last().map(|t| t.text.as_str()),
            Some("quizzer on turn 2")
        );
        let steps: Vec<String> = events
            .iter()
            .map(|e| match e {
                AgUiEvent::StepStarted { step_name } => format!("+{step_name}"),
                AgUiEvent::StepFinished { step_name } => format!("-{step_name}"),
                AgUiEvent::TextMessageContent { delta, .. } => format!("said {delta}"),
                AgUiEvent::TextMessageStart { role, .. } => format!("[{role}"),
                AgUiEvent::TextMessageEnd { .. } => "]".into(),
                other => format!("{other:?}"),
            })
            .collect();
        // Each hand-off a step, the agent's reply a text message inside it.
        assert_eq!(
            steps,
            [
                "+poet",
                "[assistant",
                "said poet on turn 1",
                "]",
                "-poet",
                "+quizzer",
                "[assistant",
                "said quizzer on turn 2",
                "]",
                "-quizzer"
            ]
        );
        // The model saw the team, the end word and the conversation so far.
        let last = server.requests()[2].body.to_string();
        assert!(last.contains("poet") && last.contains(END), "{last}");
        assert!(last.contains("poet on turn 1"), "{last}");
    }

    #[test]
    fn after_25_hand_offs_the_conversation_stops_with_that_said() {
        let server = ScriptedServer::start(vec![next("poet"); MAX_ROUNDS + 5]).unwrap();
        let mut team = Scripted { asked: vec![] };
        let done = block_on(supervise(&client(&server), &mut team, "hi", &mut |_| {})).unwrap();
        assert_eq!(done.ending, Ending::RoundLimit);
        assert_eq!(team.asked.len(), MAX_ROUNDS);
        assert_eq!(server.request_count(), MAX_ROUNDS + 1);
        assert!(done.ending_text().contains("25"));
    }

    #[test]
    fn a_reply_naming_no_agent_ends_the_conversation_without_guessing() {
        let server = ScriptedServer::start(vec![next("poet"), next("wizard")]).unwrap();
        let mut team = Scripted { asked: vec![] };
        let done = block_on(supervise(&client(&server), &mut team, "hi", &mut |_| {})).unwrap();
        assert_eq!(team.asked, ["poet"]);
        assert!(matches!(&done.ending, Ending::NoChoice(r) if r.contains("wizard")));
    }

    #[test]
    fn the_choice_is_read_from_text_too_and_checked_against_the_team() {
        let agents = vec![("poet".to_string(), String::new())];
        assert_eq!(
            choice(r#"Sure: {"next": "poet"}"#, &agents).as_deref(),
            Some("poet")
        );
        assert_eq!(
            choice(r#"{"next": "__end__"}"#, &agents).as_deref(),
            Some(END)
        );
        assert_eq!(choice(r#"{"next": "Poet"}"#, &agents), None);
        assert_eq!(choice("poet", &agents), None);
    }
}
