//! What the agent runtime needs to offer the lamp to a model: the four lamp
//! tools' names, descriptions and JSON-schema arguments, a way to run a tool
//! call against a [`Lamp`], and the lamp's reaction to a recitation verdict.
//!
//! The agent crate wraps these as tools; it offers them only while
//! [`Lamp::available_tools`] is non-empty, i.e. while a lamp is connected.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::driver::Lamp;
use crate::error::{LampError, LampResult};
use crate::protocol::{Card, Expression, Gesture, Light, ProjectorCommand};

/// The arm speed the tools and the verdict reaction use when none is given.
pub const DEFAULT_SPEED: u8 = 60;
/// The fade the light tool uses when none is given.
pub const DEFAULT_TRANSITION_MS: u16 = 500;
/// The colour temperature the light tool uses when none is given: warm white, for reading.
pub const DEFAULT_TEMPERATURE_K: u16 = 4000;

pub const SET_LIGHT: &str = "lamp_set_light";
pub const EXPRESSION: &str = "lamp_expression";
pub const GESTURE: &str = "lamp_gesture";
pub const PROJECT: &str = "lamp_project";

/// Arguments of `lamp_set_light`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetLightArgs {
    /// Brightness in percent, 0 (off) to 100.
    #[schemars(range(min = 0, max = 100))]
    pub brightness: u8,
    /// Colour temperature in kelvin: 2700 (warm) to 6500 (cool). Default 4000.
    #[schemars(range(min = 2700, max = 6500))]
    pub temperature_k: Option<u16>,
    /// Fade time in milliseconds, 0 to 10000. Default 500.
    #[schemars(range(min = 0, max = 10000))]
    pub transition_ms: Option<u16>,
}

/// Arguments of `lamp_expression`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpressionArgs {
    /// The face to show on the lamp's screen.
    pub expression: Expression,
}

/// Arguments of `lamp_gesture`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GestureArgs {
    /// The movement of the lamp's arm.
    pub gesture: Gesture,
    /// Speed in percent of the arm's top speed, 1 to 100. Default 60.
    #[schemars(range(min = 1, max = 100))]
    pub speed: Option<u8>,
}

/// Arguments of `lamp_project`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectArgs {
    /// The card's title (at most 40 characters). Required unless `off` is true.
    #[schemars(length(max = 40))]
    pub title: Option<String>,
    /// Lines of text under the title (at most 6 lines of 60 characters).
    #[serde(default)]
    #[schemars(length(max = 6))]
    pub lines: Vec<String>,
    /// Turn the projector off instead of showing a card.
    #[serde(default)]
    pub off: bool,
}

/// A tool as offered to a model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// The four lamp tools.
pub fn tool_specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: SET_LIGHT,
            description: "Set the desk lamp's light: brightness, colour temperature and fade time.",
            parameters: schemars::schema_for!(SetLightArgs).to_value(),
        },
        ToolSpec {
            name: EXPRESSION,
            description: "Show a face on the desk lamp's screen to match what you say.",
            parameters: schemars::schema_for!(ExpressionArgs).to_value(),
        },
        ToolSpec {
            name: GESTURE,
            description: "Move the desk lamp's small arm: nod, shake, wave, point or celebrate.",
            parameters: schemars::schema_for!(GestureArgs).to_value(),
        },
        ToolSpec {
            name: PROJECT,
            description:
                "Project a card (a title and a few lines) onto the desk, or turn the projector off.",
            parameters: schemars::schema_for!(ProjectArgs).to_value(),
        },
    ]
}

/// The lamp's reaction to a recitation verdict: celebrate a pass, encourage otherwise.
pub fn verdict_reaction(passed: bool) -> (Expression, Gesture) {
    if passed {
        (Expression::Happy, Gesture::Celebrate)
    } else {
        (Expression::Encourage, Gesture::Nod)
    }
}

fn parse<T: for<'de> Deserialize<'de>>(tool: &str, args: &serde_json::Value) -> LampResult<T> {
    serde_json::from_value(args.clone()).map_err(|e| LampError::ToolArguments {
        tool: tool.to_string(),
        reason: e.to_string(),
    })
}

impl Lamp {
    /// The lamp tools to offer a model now: all four while a lamp is
    /// connected, none otherwise.
    pub fn available_tools(&self) -> Vec<ToolSpec> {
        if self.is_connected() {
            tool_specs()
        } else {
            Vec::new()
        }
    }

    /// Runs one tool call; the answer is a short sentence for the model.
    pub fn run_tool(&self, name: &str, args: &serde_json::Value) -> LampResult<String> {
        match name {
            SET_LIGHT => {
                let a: SetLightArgs = parse(name, args)?;
                let light = Light::new(
                    a.brightness,
                    a.temperature_k.unwrap_or(DEFAULT_TEMPERATURE_K),
                    a.transition_ms.unwrap_or(DEFAULT_TRANSITION_MS),
                )?;
                self.set_light(light)?;
                Ok(format!(
                    "The lamp is at {} % brightness, {} K.",
                    light.brightness, light.temperature_k
                ))
            }
            EXPRESSION => {
                let a: ExpressionArgs = parse(name, args)?;
                self.show_expression(a.expression)?;
                Ok(format!("The lamp shows a {} face.", a.expression))
            }
            GESTURE => {
                let a: GestureArgs = parse(name, args)?;
                self.gesture(a.gesture, a.speed.unwrap_or(DEFAULT_SPEED))?;
                Ok(format!("The lamp's arm did a {}.", a.gesture))
            }
            PROJECT => {
                let a: ProjectArgs = parse(name, args)?;
                if a.off {
                    self.projector(ProjectorCommand::Off)?;
                    return Ok("The projector is off.".into());
                }
                let title = a.title.ok_or_else(|| LampError::ToolArguments {
                    tool: name.to_string(),
                    reason: "a title is required unless off is true".into(),
                })?;
                let card = Card::new(title, a.lines)?;
                let said = format!("The lamp projects \"{}\".", card.title);
                self.show_card(card)?;
                Ok(said)
            }
            other => Err(LampError::UnknownTool(other.to_string())),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn verdict_celebrates_a_pass_and_encourages_otherwise() {
        assert_eq!(
            verdict_reaction(true),
            (Expression::Happy, Gesture::Celebrate)
        );
        assert_eq!(
            verdict_reaction(false),
            (Expression::Encourage, Gesture::Nod)
        );
    }

    #[test]
    fn schemas_name_the_choices_and_ranges() {
        let specs = tool_specs();
        let names: Vec<_> = specs.iter().map(|s| s.name).collect();
        assert_eq!(names, [SET_LIGHT, EXPRESSION, GESTURE, PROJECT]);
        let text = serde_json::to_string(&specs).unwrap();
        for word in [
            "celebrate",
            "encourage",
            "sleep",
            "\"maximum\":6500",
            "\"minimum\":2700",
            "brightness",
        ] {
            assert!(text.contains(word), "schema lacks {word}: {text}");
        }
        let light = &specs[0].parameters;
        assert_eq!(light["required"], serde_json::json!(["brightness"]));
    }

    #[test]
    fn arguments_parse_strictly() {
        let ok: GestureArgs = parse(GESTURE, &serde_json::json!({"gesture": "wave"})).unwrap();
        assert_eq!(
            ok,
            GestureArgs {
                gesture: Gesture::Wave,
                speed: None
            }
        );
        let err =
            parse::<GestureArgs>(GESTURE, &serde_json::json!({"gesture": "dance"})).unwrap_err();
        assert!(err.to_string().contains("lamp_gesture"), "{err}");
        assert!(parse::<SetLightArgs>(
            SET_LIGHT,
            &serde_json::json!({"brightness": 5, "colour": 1})
        )
        .is_err());
    }
}
