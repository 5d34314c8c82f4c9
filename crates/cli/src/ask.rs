//! `deskmate ask`: a parent's question about a child's progress, answered
//! in words with the chart's data (without a model: the built-in questions,
//! picked by the question's words).

use std::process::ExitCode;

use clap::Args;
use deskmate_app::Deskmate;

use crate::output;

#[derive(Args)]
pub struct AskArgs {
    /// The child asked about (id or name).
    #[arg(long)]
    profile: String,
    /// Print the answer and its chart as JSON.
    #[arg(long)]
    json: bool,
    /// The question, e.g. 这周背得怎么样? or "most missed characters".
    #[arg(required = true)]
    question: Vec<String>,
}

pub fn run(app: &Deskmate, args: AskArgs) -> anyhow::Result<ExitCode> {
    let answer = app.ask(&args.profile, &args.question.join(" "), chrono::Utc::now())?;
    if args.json {
        output::json(&answer)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}", answer.text);
    if let Some(chart) = answer.chart {
        let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
        println!(
            "chart: {:?} {} ({})",
            chart.kind,
            chart.title,
            names.join(", ")
        );
        for (i, label) in chart.labels.iter().enumerate() {
            let values: Vec<String> = chart
                .series
                .iter()
                .map(|s| s.values.get(i).map(|v| v.to_string()).unwrap_or_default())
                .collect();
            println!("  {label}: {}", values.join(", "));
        }
    }
    Ok(ExitCode::SUCCESS)
}
