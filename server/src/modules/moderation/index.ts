export { FilterTermsCache } from './filter-terms-cache.js';
export {
  flaggerOf,
  type ModerationDeps,
  namePolicy,
  pollTextPolicies,
  slideTextFilter,
  slideTextPolicy,
  type TextPolicy,
  type TextView,
} from './text-policy.service.js';
