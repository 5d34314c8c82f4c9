import { useEffect, useState } from "react";
import * as api from "../api";
import type { Lang, Material, Profile } from "../api";
import { Header } from "../components/Header";
import { errorText } from "../errors";
import { gradeKey, gradeLabel, translate, useT, type MessageKey } from "../i18n";
import { useDebounced } from "../useDebounced";
import { GRADES } from "../validation";

export const SEARCH_DEBOUNCE_MS = 200;

type LangFilter = "all" | Lang;

const LANG_FILTERS: { value: LangFilter; key: MessageKey }[] = [
  { value: "all", key: "filter.langAll" },
  { value: "zh", key: "filter.langZh" },
  { value: "en", key: "filter.langEn" },
];

/**
 * "李白（唐）" / "Jane Taylor", or null without an author. Punctuated in the
 * material's own language, so a Chinese poem keeps full-width brackets in the
 * English UI too.
 */
export function byline(m: Pick<Material, "author" | "dynasty" | "lang">): string | null {
  const author = m.author?.trim();
  const dynasty = m.dynasty?.trim();
  if (author && dynasty) return translate(m.lang === "en" ? "en" : "zh-CN", "material.byline", { author, dynasty });
  return author || null;
}

/** The first non-empty line of a text. */
export function firstLine(body: string): string {
  return body.split(/\r?\n/).find((l) => l.trim())?.trim() ?? "";
}

function materialLangAttr(lang: Lang): string {
  return lang === "zh" ? "zh-CN" : "en";
}

interface ChildHomeProps {
  profile: Profile;
  onExit: () => void;
}

/** The child's library: filters, search and a card per material; a card opens the full text. */
export function ChildHome({ profile, onExit }: ChildHomeProps) {
  const t = useT();
  const [lang, setLang] = useState<LangFilter>("all");
  const [grade, setGrade] = useState<number | null>(null);
  const [search, setSearch] = useState("");
  const debouncedSearch = useDebounced(search, SEARCH_DEBOUNCE_MS);
  const [materials, setMaterials] = useState<Material[] | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [reloadToken, setReloadToken] = useState(0);
  const [open, setOpen] = useState<Material | null>(null);

  useEffect(() => {
    let stale = false;
    setLoading(true);
    setError(null);
    const q = debouncedSearch.trim();
    api
      .materialsList({ lang: lang === "all" ? null : lang, grade, search: q ? q : null })
      .then((list) => {
        if (!stale) setMaterials(list);
      })
      .catch((e) => {
        if (!stale) setError(errorText(e));
      })
      .finally(() => {
        if (!stale) setLoading(false);
      });
    return () => {
      stale = true;
    };
  }, [lang, grade, debouncedSearch, reloadToken]);

  const back = open ? () => setOpen(null) : onExit;

  return (
    <div className="screen" data-testid="child-home">
      <Header onBack={back} backLabel={open ? t("material.backToLibrary") : undefined} />
      {open ? (
        <MaterialDetail material={open} onBack={() => setOpen(null)} />
      ) : (
        <main className="content">
          <h1 className="page-title">{t("child.hello", { name: profile.name })}</h1>
          <section className="filters card" aria-label={t("library.title")}>
            <div className="filter-group">
              <span className="field-label" id="filter-lang-label">
                {t("filter.lang")}
              </span>
              <div className="segmented" role="group" aria-labelledby="filter-lang-label">
                {LANG_FILTERS.map((f) => (
                  <button
                    key={f.value}
                    type="button"
                    className="segmented-item"
                    data-testid={`filter-lang-${f.value}`}
                    aria-pressed={lang === f.value}
                    onClick={() => setLang(f.value)}
                  >
                    {t(f.key)}
                  </button>
                ))}
              </div>
            </div>
            <div className="filter-group">
              <label className="field-label" htmlFor="filter-grade">
                {t("filter.grade")}
              </label>
              <select
                id="filter-grade"
                data-testid="filter-grade"
                className="input"
                value={grade === null ? "" : String(grade)}
                onChange={(e) => setGrade(e.target.value ? Number(e.target.value) : null)}
              >
                <option value="">{t("grade.all")}</option>
                {GRADES.map((g) => (
                  <option key={g} value={String(g)}>
                    {t(gradeKey(g))}
                  </option>
                ))}
              </select>
            </div>
            <div className="filter-group filter-search">
              <label className="field-label" htmlFor="library-search">
                {t("library.search")}
              </label>
              <input
                id="library-search"
                data-testid="library-search"
                className="input"
                type="search"
                autoComplete="off"
                placeholder={t("library.searchPlaceholder")}
                value={search}
                onChange={(e) => setSearch(e.target.value)}
              />
            </div>
          </section>

          <div aria-live="polite" className="library-status">
            {error ? (
              <div className="banner banner-error" role="alert">
                <span>{t("library.error", { error })}</span>
                <button type="button" className="btn btn-secondary" onClick={() => setReloadToken((n) => n + 1)}>
                  {t("app.retry")}
                </button>
              </div>
            ) : loading && materials === null ? (
              <p className="muted">{t("library.loading")}</p>
            ) : materials && materials.length === 0 ? (
              <p className="empty">{t("library.empty")}</p>
            ) : materials ? (
              <p className="muted">{t("library.count", { count: materials.length })}</p>
            ) : null}
          </div>

          {materials && materials.length > 0 && !error && (
            <ul className={loading ? "material-grid is-loading" : "material-grid"}>
              {materials.map((m) => (
                <li key={m.id}>
                  <button
                    type="button"
                    className="material-card"
                    data-testid="material-card"
                    data-title={m.title}
                    data-lang={m.lang}
                    onClick={() => setOpen(m)}
                  >
                    <span className="material-title" lang={materialLangAttr(m.lang)}>
                      {m.title}
                    </span>
                    {byline(m) && <span className="material-byline">{byline(m)}</span>}
                    <span className="material-first-line" lang={materialLangAttr(m.lang)}>
                      {firstLine(m.body)}
                    </span>
                    <span className="material-tags">
                      {gradeLabel(t, m.grade) && <span className="tag">{gradeLabel(t, m.grade)}</span>}
                      {m.source === "custom" && <span className="tag tag-custom">{t("material.custom")}</span>}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </main>
      )}
    </div>
  );
}

function MaterialDetail({ material, onBack }: { material: Material; onBack: () => void }) {
  const t = useT();
  const by = byline(material);
  return (
    <main className="content content-reading" data-testid="material-detail">
      <article className="card reading" lang={materialLangAttr(material.lang)}>
        <h1 className="reading-title" data-testid="material-detail-title">
          {material.title}
        </h1>
        {by && <p className="reading-byline">{by}</p>}
        <div className="reading-body" data-testid="material-detail-body">
          {material.body}
        </div>
      </article>
      <button type="button" className="btn btn-secondary btn-large" data-testid="detail-back" onClick={onBack}>
        <span aria-hidden="true">←</span> {t("material.backToLibrary")}
      </button>
    </main>
  );
}
