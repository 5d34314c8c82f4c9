//! The answers to requests refused before anything was decided — nothing
//! heard, photos that are not photos or could not be checked, a scene that
//! could not act: the child stays where they were, told why in plain
//! words; nothing of theirs is stored, but the request's spans are kept so a
//! parent can see what happened.

use super::*;

impl Entry {
    /// The answer to a recording that could not be heard: the child stays
    /// where they are, told why in plain words; nothing is stored.
    pub(super) fn not_heard(
        session: &Session,
        error: &SceneError,
        speech_us: u64,
        total_us: u64,
    ) -> Response {
        let words = match error.code() {
            "speech.nothing_heard" | "speech.unclear" | "speech.not_the_material" => said(
                "没听清楚，靠近麦克风再说一次吧。",
                "I didn't catch that. Say it again, a little closer to the microphone?",
            ),
            "speech.audio" => said(
                "这段录音打不开，再录一次吧。",
                format!("That recording can't be read ({error}). Record it again?"),
            ),
            "speech.microphone" | "speech.microphone_lost" => said(
                "没找到能用的麦克风，请家长看看麦克风接好了没有。打字也可以哦。",
                format!("I can't hear you: no microphone works here ({error}). Ask a parent to check it, or type instead."),
            ),
            "models.needed" | "models.missing" | "models.checksum" | "models.format" => said(
                "现在还听不了语音：需要家长先在设置里下载离线语音模型。打字也可以哦。",
                "I can't listen yet: a parent needs to fetch the offline speech models in Settings. You can type instead.",
            ),
            _ => said(
                "刚才没听成，再说一次吧。",
                format!("Listening failed ({error}). Say it again?"),
            ),
        };
        let mut r = Self::refused(session, error, words, "the recording could not be heard");
        r.timings = Timings {
            speech_us,
            total_us,
            ..Timings::default()
        };
        r
    }

    /// The answer to photos that could not be checked (a file that is not
    /// a photo, the model failing or answering out of shape): the child
    /// stays where they are, told why; nothing is stored.
    pub(super) fn not_checked(session: &Session, error: &SceneError, total_us: u64) -> Response {
        let words = match error.code() {
            "homework.not_an_image" => said(
                "这个文件不是照片，换一张作业的照片吧。",
                format!("That file is not a photo ({error}). Send a photo of the homework?"),
            ),
            "homework.photo_too_large" => said(
                "这张照片太大了，拍小一点再发吧。",
                format!("That photo is too large ({error})."),
            ),
            "homework.too_many_photos" => said(
                "一次最多发四张照片哦。",
                format!("Too many photos at once ({error})."),
            ),
            "homework.photo_unreadable" => said(
                "这张照片打不开，再拍一次吧。",
                format!("That photo can't be opened ({error}). Take it again?"),
            ),
            "homework.model_reply" => said(
                "这次没看明白你的作业，拍清楚一点再发一次吧。",
                format!("I couldn't make out the homework ({error}). Send a clearer photo?"),
            ),
            _ => said(
                "现在检查不了作业，等一下再试，或者请家长看看模型设置。",
                format!("I can't check homework right now ({error}). Try again later, or ask a parent to look at the model settings."),
            ),
        };
        let mut r = Self::refused(session, error, words, "the photos could not be checked");
        r.timings.total_us = total_us;
        r
    }

    /// A request refused before any decision (nothing heard, photos that
    /// cannot be used or checked) keeps its spans all the same — no
    /// decision, no session change, nothing of the child's — so a parent's
    /// "what happened" and `deskmate trace show` can say why it failed. The
    /// root span carries the child, the scene, what the child was told and
    /// the refusal's code.
    pub(super) fn keep_refused(
        &self,
        spans: &Spans,
        profile_id: &str,
        session: &Session,
        spoken: bool,
        mut r: Response,
    ) -> Response {
        r.trace_id = spans.trace_id().to_string();
        shape::shape(&mut r, session, spoken);
        let mut root = serde_json::Map::new();
        root.insert("profile".into(), profile_id.into());
        root.insert("scene".into(), scene_name(r.scene).into());
        root.insert("said".into(), r.text_zh.clone().into());
        let mut recorded = spans.finish(crate::trace::Outcome::Error, root);
        if let (Some(first), Some(e)) = (recorded.first_mut(), &r.error) {
            first.error_code = Some(e.code.clone());
        }
        if let Err(e) = self
            .store
            .with_conn(|c| Ok(crate::trace::write(c, &recorded)?))
        {
            tracing::warn!(
                "the spans of refused request {} could not be stored: {e}",
                r.trace_id
            );
        }
        if let Some(endpoint) = &self.otlp_endpoint {
            crate::trace::otlp::export(endpoint, recorded);
        }
        r
    }

    pub(super) fn refused(
        session: &Session,
        error: &SceneError,
        (zh, en): (String, String),
        why: &str,
    ) -> Response {
        Response {
            trace_id: uuid::Uuid::now_v7().to_string(),
            scene: session.active,
            intent: Intent::ContinueCurrent,
            confidence: Confidence::Low,
            routed_by: RoutedBy::Rules,
            decision: Decision::Reject {
                reason: error.to_string(),
            },
            reason: why.into(),
            heard: None,
            error: Some(error.wire()),
            text_zh: zh,
            text_en: en,
            material: None,
            practice: None,
            due: Vec::new(),
            plan: None,
            homework: None,
            needs_model: false,
            handoff: false,
            session_id: String::new(),
            phase: String::new(),
            need_tts: false,
            lamp: Vec::new(),
            suggestions: Vec::new(),
            timings: Timings::default(),
        }
    }
}
