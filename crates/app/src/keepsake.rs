//! A report to keep (issue 20, point 5): a child's weekly report as a
//! picture (PNG) or a PDF a parent can save or share, and a
//! certificate-style page when the child met the week's goals.
//!
//! The page is drawn once, as SVG ([`page`]), then rendered by `resvg`
//! (PNG) or converted by `svg2pdf` (PDF, text kept as text with the font
//! subset embedded) — the same page both ways, and no browser needed, so
//! the CLI writes it exactly as the window does. Text needs a Chinese font:
//! the system's Noto CJK (`fonts-noto-cjk`, installed by the project's
//! scripts); without one the page is refused with words saying so, never
//! drawn with empty boxes.
//!
//! **The week's goals met** means every goal the parent set for the child
//! (`deskmate plan goals`) held over that week: reviews passed at least the
//! weekly target (one per material and local day, as the plan counts
//! them), and materials learned (first passed) at least seven times the
//! daily target. A child with no goals gets the report page, no
//! certificate: there is nothing to have met.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use deskmate_protocol::family::{GoalOutcome, KeepsakeFormat, KeepsakeWritten};
use deskmate_recite::report::{Report, ReportType};
use deskmate_store::{GoalKind, ProfileKind};

use crate::recite::{HistoryFilter, Purpose};
use crate::{AppError, AppResult, Deskmate};

/// The page's size in CSS pixels (A4 at 96 dpi).
const WIDTH: f32 = 794.0;
const HEIGHT: f32 = 1123.0;
/// The PNG is drawn at twice the page's size, sharp enough to print.
const PNG_SCALE: f32 = 2.0;
/// The fonts the page asks for, first found wins.
const FONT_FAMILIES: &str =
    "'Noto Sans CJK SC', 'Noto Serif CJK SC', 'WenQuanYi Micro Hei', sans-serif";

impl Deskmate {
    /// Writes the weekly report of the week holding `date` (the child's
    /// local date) for `profile` to `out`, as a PNG or a PDF by `format`
    /// (or by `out`'s extension when `None`). The report is generated (and
    /// stored) as `deskmate report weekly` does.
    pub fn save_report_keepsake(
        &self,
        profile: &str,
        date: NaiveDate,
        out: &Path,
        format: Option<KeepsakeFormat>,
        now: DateTime<Utc>,
    ) -> AppResult<KeepsakeWritten> {
        let format = match format {
            Some(f) => f,
            None => format_of(out)?,
        };
        let child = crate::recite::find_profile(self.store(), profile)?;
        if child.kind != ProfileKind::Child {
            return Err(AppError::Invalid(format!(
                "{} is a parent: reports are a child's",
                child.name
            )));
        }
        let report = self.report(&child.id, ReportType::Weekly, date, now)?;
        let goals = self.week_goals(&child.id, &child.time_zone, &report)?;
        let certificate = !goals.is_empty() && goals.iter().all(|g| g.met);
        let svg = page(&child.name, &report, &goals, certificate);
        let bytes = render(&svg, format)?;
        std::fs::write(out, &bytes)
            .map_err(|e| AppError::Invalid(format!("cannot write {}: {e}", out.display())))?;
        Ok(KeepsakeWritten {
            profile_id: child.id,
            name: child.name,
            week_of: report.report_date.to_string(),
            file: out.display().to_string(),
            format,
            bytes: bytes.len() as u64,
            certificate,
            goals,
        })
    }

    /// Each goal the parent set for the child, held against the week.
    fn week_goals(
        &self,
        profile_id: &str,
        time_zone: &str,
        report: &Report,
    ) -> AppResult<Vec<GoalOutcome>> {
        let goals = self.goals(profile_id)?;
        if goals.is_empty() {
            return Ok(Vec::new());
        }
        let tz: Tz = deskmate_orchestrator::usage::zone(time_zone);
        let instant = |s: &str| {
            DateTime::parse_from_rfc3339(s)
                .map(|d| d.with_timezone(&Utc))
                .map_err(|_| AppError::Invalid(format!("the report's period {s:?} is not a time")))
        };
        let filter = HistoryFilter {
            material_id: None,
            from: Some(instant(&report.period_start)?),
            to: Some(instant(&report.period_end)?),
            limit: 10_000,
        };
        let attempts = self.recitation_history(profile_id, &filter)?;
        // One review sitting per material and local day, as the plan counts.
        let reviews: BTreeSet<(String, NaiveDate)> = attempts
            .iter()
            .filter(|a| a.passed && a.purpose == Purpose::Review)
            .filter_map(|a| {
                let at = DateTime::parse_from_rfc3339(&a.created_at).ok()?;
                Some((a.material_id.clone(), at.with_timezone(&tz).date_naive()))
            })
            .collect();
        let learned = attempts.iter().filter(|a| a.first_pass).count() as u32;
        Ok(goals
            .into_iter()
            .map(|g| {
                let (done, target) = match g.kind {
                    GoalKind::ReviewsPerWeek => (reviews.len() as u32, g.target),
                    GoalKind::NewPerDay => (learned, g.target.saturating_mul(7)),
                };
                GoalOutcome {
                    kind: g.kind.as_str().to_string(),
                    target,
                    done,
                    met: done >= target,
                }
            })
            .collect())
    }
}

/// The format `out`'s extension names.
fn format_of(out: &Path) -> AppResult<KeepsakeFormat> {
    match out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => Ok(KeepsakeFormat::Png),
        Some("pdf") => Ok(KeepsakeFormat::Pdf),
        _ => Err(AppError::Invalid(format!(
            "{} names neither a picture nor a PDF: end the file name in .png or .pdf",
            out.display()
        ))),
    }
}

/// The system's fonts, checked for one that has Chinese.
fn fonts() -> AppResult<Arc<resvg::usvg::fontdb::Database>> {
    let mut db = resvg::usvg::fontdb::Database::new();
    db.load_system_fonts();
    let has_chinese = db.faces().any(|f| {
        f.families
            .iter()
            .any(|(name, _)| name.contains("CJK") || name.contains("WenQuanYi"))
    });
    if !has_chinese {
        return Err(AppError::Config(
            "no Chinese font is installed, so the report cannot be drawn: install Noto CJK \
             (`apt-get install fonts-noto-cjk`, which the project's setup script does)"
                .into(),
        ));
    }
    Ok(Arc::new(db))
}

/// The page as PNG or PDF bytes.
fn render(svg: &str, format: KeepsakeFormat) -> AppResult<Vec<u8>> {
    let options = resvg::usvg::Options {
        fontdb: fonts()?,
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &options)
        .map_err(|e| AppError::Invalid(format!("the report page cannot be drawn: {e}")))?;
    match format {
        KeepsakeFormat::Png => {
            let (w, h) = ((WIDTH * PNG_SCALE) as u32, (HEIGHT * PNG_SCALE) as u32);
            let mut pixmap = resvg::tiny_skia::Pixmap::new(w, h)
                .ok_or_else(|| AppError::Invalid("the picture is too large".into()))?;
            resvg::render(
                &tree,
                resvg::tiny_skia::Transform::from_scale(PNG_SCALE, PNG_SCALE),
                &mut pixmap.as_mut(),
            );
            pixmap
                .encode_png()
                .map_err(|e| AppError::Invalid(format!("the picture cannot be encoded: {e}")))
        }
        KeepsakeFormat::Pdf => svg2pdf::to_pdf(
            &tree,
            svg2pdf::ConversionOptions::default(),
            svg2pdf::PageOptions::default(),
        )
        .map_err(|e| AppError::Invalid(format!("the PDF cannot be written: {e}"))),
    }
}

/// Text made safe inside SVG.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn text(x: f32, y: f32, size: f32, weight: &str, fill: &str, anchor: &str, s: &str) -> String {
    format!(
        r#"<text x="{x}" y="{y}" font-size="{size}" font-weight="{weight}" fill="{fill}" text-anchor="{anchor}">{}</text>"#,
        esc(s)
    )
}

/// Minutes as a child reads them: whole ones, a tenth under ten.
fn minutes(m: f64) -> String {
    if m < 10.0 {
        format!("{m:.1}")
    } else {
        format!("{m:.0}")
    }
}

fn goal_words(g: &GoalOutcome) -> String {
    let mark = if g.met { "✓" } else { "○" };
    match g.kind.as_str() {
        "reviews_per_week" => format!(
            "{mark} 本周复习 {}/{} 次  Reviews {}/{}",
            g.done, g.target, g.done, g.target
        ),
        "new_per_day" => format!(
            "{mark} 本周新学 {}/{} 首  New {}/{}",
            g.done, g.target, g.done, g.target
        ),
        other => format!("{mark} {other} {}/{}", g.done, g.target),
    }
}

/// The page: the week's figures, a bar per day, what to work on, and —
/// when the week's goals were met — a certificate's frame and words.
pub(crate) fn page(
    name: &str,
    report: &Report,
    goals: &[GoalOutcome],
    certificate: bool,
) -> String {
    let s = &report.summary;
    let end = report.report_date + Duration::days(6);
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT_FAMILIES}">"#
    );
    out.push_str(&format!(
        r##"<rect width="{WIDTH}" height="{HEIGHT}" fill="#fffdf7"/>"##
    ));
    let (accent, title) = if certificate {
        // A double gold frame: a certificate (奖状).
        out.push_str(&format!(
            r##"<rect x="18" y="18" width="{}" height="{}" fill="none" stroke="#c9a227" stroke-width="10" data-part="certificate"/><rect x="36" y="36" width="{}" height="{}" fill="none" stroke="#c9a227" stroke-width="2"/>"##,
            WIDTH - 36.0,
            HEIGHT - 36.0,
            WIDTH - 72.0,
            HEIGHT - 72.0
        ));
        ("#b8860b", "奖状 · Certificate")
    } else {
        ("#2f6f4f", "本周学习报告 · Weekly report")
    };
    out.push_str(&text(
        WIDTH / 2.0,
        110.0,
        40.0,
        "bold",
        accent,
        "middle",
        title,
    ));
    out.push_str(&text(
        WIDTH / 2.0,
        160.0,
        26.0,
        "normal",
        "#333",
        "middle",
        &format!("{name}  ·  {} – {}", report.report_date, end),
    ));
    if certificate {
        out.push_str(&text(
            WIDTH / 2.0,
            215.0,
            24.0,
            "normal",
            "#333",
            "middle",
            &format!("{name} 完成了本周的全部目标，特发此状，以资鼓励！"),
        ));
        out.push_str(&text(
            WIDTH / 2.0,
            248.0,
            18.0,
            "normal",
            "#555",
            "middle",
            &format!("{name} met every goal of the week. Well done!"),
        ));
    }

    // The week's figures, four boxes in a row.
    let accuracy = s
        .average_accuracy
        .map(|a| format!("{a:.0}%"))
        .unwrap_or_else(|| "—".into());
    let figures = [
        ("背诵次数 Attempts", s.attempts.to_string()),
        ("练习分钟 Minutes", minutes(s.minutes)),
        ("平均正确率 Accuracy", accuracy),
        ("新学会 Learned", s.first_passes.to_string()),
    ];
    let box_w = (WIDTH - 120.0) / 4.0;
    for (i, (label, value)) in figures.iter().enumerate() {
        let x = 60.0 + i as f32 * box_w;
        out.push_str(&format!(
            r##"<rect x="{}" y="290" width="{}" height="110" rx="12" fill="#f1efe6"/>"##,
            x + 6.0,
            box_w - 12.0
        ));
        out.push_str(&text(
            x + box_w / 2.0,
            350.0,
            36.0,
            "bold",
            accent,
            "middle",
            value,
        ));
        out.push_str(&text(
            x + box_w / 2.0,
            385.0,
            15.0,
            "normal",
            "#555",
            "middle",
            label,
        ));
    }

    // Minutes per day, a bar each, Monday to Sunday.
    out.push_str(&text(
        60.0,
        460.0,
        20.0,
        "bold",
        "#333",
        "start",
        "每天练习 · Minutes each day",
    ));
    let top = 480.0;
    let chart_h = 200.0;
    let max = report
        .days
        .iter()
        .map(|d| d.minutes)
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let bar_slot = (WIDTH - 120.0) / 7.0;
    const WEEKDAYS: [&str; 7] = ["一", "二", "三", "四", "五", "六", "日"];
    for (i, label) in WEEKDAYS.iter().enumerate() {
        let minutes = report.days.get(i).map(|d| d.minutes).unwrap_or(0.0);
        let h = (minutes / max) as f32 * chart_h;
        let x = 60.0 + i as f32 * bar_slot + bar_slot * 0.2;
        out.push_str(&format!(
            r##"<rect x="{x}" y="{}" width="{}" height="{h}" rx="4" fill="{accent}" data-part="day-bar"/>"##,
            top + chart_h - h,
            bar_slot * 0.6
        ));
        if minutes > 0.0 {
            out.push_str(&text(
                x + bar_slot * 0.3,
                top + chart_h - h - 6.0,
                14.0,
                "normal",
                "#333",
                "middle",
                &self::minutes(minutes),
            ));
        }
        out.push_str(&text(
            x + bar_slot * 0.3,
            top + chart_h + 24.0,
            16.0,
            "normal",
            "#555",
            "middle",
            &format!("周{label}"),
        ));
    }

    // The goals, then what to work on.
    let mut y = 770.0;
    if !goals.is_empty() {
        out.push_str(&text(
            60.0,
            y,
            20.0,
            "bold",
            "#333",
            "start",
            "本周目标 · Goals",
        ));
        for g in goals {
            y += 32.0;
            let fill = if g.met { "#2f6f4f" } else { "#8a5a00" };
            out.push_str(&text(
                80.0,
                y,
                18.0,
                "normal",
                fill,
                "start",
                &goal_words(g),
            ));
        }
        y += 50.0;
    }
    if !report.weakest_materials.is_empty() || !report.top_patterns.is_empty() {
        out.push_str(&text(
            60.0,
            y,
            20.0,
            "bold",
            "#333",
            "start",
            "下周多练 · To practise next",
        ));
        for m in report.weakest_materials.iter().take(3) {
            y += 30.0;
            out.push_str(&text(
                80.0,
                y,
                17.0,
                "normal",
                "#444",
                "start",
                &format!("《{}》 {:.0}%", m.title, m.average_accuracy),
            ));
        }
        for p in report.top_patterns.iter().take(2) {
            y += 30.0;
            out.push_str(&text(
                80.0,
                y,
                17.0,
                "normal",
                "#444",
                "start",
                &format!(
                    "《{}》 第{}句：{} → {} ×{}",
                    p.title, p.line, p.expected, p.actual, p.occurrences
                ),
            ));
        }
    }
    out.push_str(&text(
        WIDTH / 2.0,
        HEIGHT - 60.0,
        14.0,
        "normal",
        "#888",
        "middle",
        &format!(
            "同桌 Deskmate · {}",
            report.generated_at.get(..10).unwrap_or("")
        ),
    ));
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskmate_recite::report::{DaySummary, PeriodSummary, Trend, WeakMaterial};

    fn report() -> Report {
        let monday = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        Report {
            profile_id: "p".into(),
            report_type: ReportType::Weekly,
            report_date: monday,
            time_zone: "Asia/Shanghai".into(),
            period_start: "2026-11-22T16:00:00Z".into(),
            period_end: "2026-11-29T16:00:00Z".into(),
            summary: PeriodSummary {
                attempts: 9,
                minutes: 23.0,
                average_accuracy: Some(91.5),
                passes: 6,
                first_passes: 2,
                materials_practised: 3,
                materials_mastered: 0,
                reviews: 4,
            },
            previous: PeriodSummary::default(),
            trend: Trend {
                attempts: 9,
                minutes: 23.0,
                average_accuracy: None,
                direction: "new".into(),
            },
            top_patterns: vec![],
            weakest_materials: vec![WeakMaterial {
                material_id: "m".into(),
                title: "静夜思 <&>".into(),
                attempts: 3,
                average_accuracy: 70.0,
                passed: false,
            }],
            days: (0..7)
                .map(|i| DaySummary {
                    date: monday + Duration::days(i),
                    attempts: 1,
                    minutes: i as f64,
                    average_accuracy: None,
                })
                .collect(),
            generated_at: "2026-11-27T10:00:00Z".into(),
        }
    }

    fn goal(met: bool) -> GoalOutcome {
        GoalOutcome {
            kind: "reviews_per_week".into(),
            target: 3,
            done: if met { 3 } else { 1 },
            met,
        }
    }

    #[test]
    fn the_certificate_frame_and_words_only_when_the_goals_were_met() {
        let with = page("小明", &report(), &[goal(true)], true);
        assert!(with.contains(r#"data-part="certificate""#));
        assert!(with.contains("奖状"));
        assert!(with.contains("小明 完成了本周的全部目标"));
        let without = page("小明", &report(), &[goal(false)], false);
        assert!(!without.contains(r#"data-part="certificate""#));
        assert!(!without.contains("奖状"));
        assert!(without.contains("○ 本周复习 1/3 次"));
    }

    #[test]
    fn the_page_is_well_formed_svg_with_titles_escaped_and_a_bar_a_day() {
        let svg = page("A&B", &report(), &[], false);
        assert!(svg.contains("《静夜思 &lt;&amp;&gt;》 70%"));
        assert!(svg.contains("A&amp;B"));
        assert_eq!(svg.matches(r#"data-part="day-bar""#).count(), 7);
        let opts = resvg::usvg::Options::default();
        resvg::usvg::Tree::from_str(&svg, &opts).expect("the page parses as SVG");
    }

    #[test]
    fn the_format_comes_from_the_file_name() {
        assert_eq!(
            format_of(Path::new("a/b.PNG")).unwrap(),
            KeepsakeFormat::Png
        );
        assert_eq!(format_of(Path::new("r.pdf")).unwrap(), KeepsakeFormat::Pdf);
        let err = format_of(Path::new("r.txt")).unwrap_err().to_string();
        assert!(err.contains(".png or .pdf"), "{err}");
    }
}
