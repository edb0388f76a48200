export { type FilterTerms, FilterTermsCache } from './filter-terms-cache.js';
export {
  contentRejected,
  filterTermsOf,
  flaggerOf,
  type ModerationDeps,
  namePolicy,
  pollTextPolicies,
  slideTextFilter,
  slideTextPolicy,
  type TextPolicy,
  type TextVerdict,
  type TextView,
} from './text-policy.service.js';
