// What the page says about a head, in the language in use: its short name ("cross 2·1"), its
// roles with their scores and thresholds ("previous token, 81 % of its weight (threshold 40 %)"),
// and the tooltip the model view shows for it. The roles and their scores are heads.json's
// (`attnscope heads --json`, src/study/roles.rs); the page only puts them in words.

import { t } from '../ui/i18n.js';
import { kindTitle } from './attention.js';

/** `KIND:LAYER:HEAD`: a head's key, and its part of an ablation spec (the module reads the page's kinds). */
export const headKey = ({ kind, layer, head }) => `${kind}:${layer}:${head}`;

/** "cross 2·1". */
export const headLabel = ({ kind, layer, head }) => t('heads.short', { kind: t(`heads.kind.${kind}`), layer, head });

/** A number with three decimals, a true minus sign when negative. */
export const fixed3 = (value) => (value < 0 ? `−${(-value).toFixed(3)}` : value.toFixed(3));

const percent = (share) => Math.round(share * 100);

/** A role's score in words: "81 % of its weight (threshold 40 %)". */
export function scoreText({ role, score, threshold }) {
  return t('heads.score', { score: t(`heads.scoreOf.${role}`, { percent: percent(score) }), threshold: percent(threshold) });
}

/** One role of a head, in a line: "previous token, 81 % of its weight (threshold 40 %): looks at the token just before it". */
export const roleLine = (score) =>
  t('heads.roleLine', { role: t(`heads.role.${score.role}`), score: scoreText(score), explain: t(`heads.explain.${score.role}`) });

/** Importance ranks: key → { rank (1 = the largest fall), drop, share of the largest fall }, or an empty map. */
export function ranks(importance) {
  const out = new Map();
  if (!importance) return out;
  const sorted = [...importance.heads].sort((a, b) => b.drop - a.drop);
  const top = Math.max(...sorted.map((h) => Math.abs(h.drop)), 1e-9);
  sorted.forEach((h, i) => {
    out.set(headKey(h), { rank: i + 1, drop: h.drop, share: Math.max(0, h.drop) / top });
  });
  return out;
}

/** heads.json's entry for `head`, or null. */
export const studied = (study, head) => study?.heads.find((h) => headKey(h) === headKey(head)) ?? null;

/**
 * The model view's tooltip for `head`: its name, whether it is off, its roles over the held-out
 * sentences (or, with none above its threshold, its highest score), its held-out mean importance
 * and its importance for the shown output. `marks`: { off, importance, study } (views/modelview.js mark).
 */
export function headTooltip(head, { off, importance, study }, rankOf = ranks(importance)) {
  const lines = [t('focus.caption', { kind: kindTitle(head.kind), layer: head.layer, head: t('head.one', { head: head.head }) })];
  if (off.some((h) => headKey(h) === headKey(head))) lines.push(t('heads.tipOff'));
  const entry = studied(study, head);
  if (!entry) lines.push(t('heads.tipNoStudy'));
  else {
    lines.push(t('heads.tipRoles', { sentences: study.sentences }));
    if (entry.roles.length) {
      for (const role of entry.roles) {
        const score = entry.scores.find((s) => s.role === role);
        if (score) lines.push(`• ${roleLine(score)}`);
      }
    } else if (entry.scores.length) {
      const best = entry.scores.reduce((a, b) => (b.score > a.score ? b : a));
      lines.push(t('heads.tipNoRole', { role: t(`heads.role.${best.role}`), score: scoreText(best) }));
    }
    if (entry.importance != null) {
      lines.push(t('heads.tipHeldOut', { value: fixed3(entry.importance), share: percent(entry.hurtShare ?? 0) }));
    }
  }
  const rank = rankOf.get(headKey(head));
  if (rank) lines.push(t('heads.tipSentence', { value: fixed3(rank.drop), rank: rank.rank, count: rankOf.size }));
  return lines.join('\n');
}
