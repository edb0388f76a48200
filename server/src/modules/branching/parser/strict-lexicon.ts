import { list } from './lexicon.js';

/**
 * The strict grammar's phrases (rules, conditions, subjects, predicates, actions, references): the
 * vocabulary of instructions written the documented way ("If Q2 is below 3, skip to Q4").
 */

/** "they did not answer Q2", "they left Q2 blank". */
export const NOT_ANSWERED_VERBS = list(
  'did not answer|does not answer|do not answer|have not answered|has not answered|did not respond to|does not respond to|did not reply to|did not fill in|did not fill out|skipped|skip|skips|left|leave|leaves',
);
/** "they wrote something in Q5", "asked a question on Q7". */
export const WROTE_VERBS = list(
  'wrote something in|wrote anything in|wrote in|typed something in|typed in|posted in|posted a question in|posted on|asked something on|asked something in|asked a question on|asked a question in|asked anything on|asked on|commented on|left a comment on|left a comment in',
);
/** what "did not" turns into a blank: "did not ask anything on Q7". */
export const SILENT_VERBS = list(
  'ask anything on|ask anything in|ask a question on|ask a question in|write anything in|write anything on|post in|post anything in|comment on',
);
/** an option said of the respondent: "they are on the Free plan", "they work in Sales". */
export const BEING_VERBS = list(
  'are on|is on|are in|is in|are using|is using|use|uses|are joining|is joining|will join|joined|work in|works in|are from|is from|attended|went to',
);
/** verbs of choosing after "did not": "did not pick". */
export const CHOOSE_STEMS = list('choose|pick|select|vote for|tick|check|mark');
/** "they chose / picked / ticked / voted for / went with …". */
export const CHOSE_VERBS = list(
  'chose|choose|chooses|has chosen|have chosen|picked|pick|picks|selected|select|selects|has selected|have selected|voted for|vote for|votes for|ticked|tick|ticks|checked|check|checks|marked|mark|marks|went with|go with|goes with|opted for|opt for|opts for',
);
/** "they rated / gave / scored …". */
export const RATED_VERBS = list('rated|rate|rates|gave|give|gives|scored|score|scores');
/** "they answered with 5 on Q2", "they said Yes to Q2". */
export const ANSWERED_WITH = list(
  'answered with|answers with|responded with|responds with|replied with|replies with|said|says|say|replied|replies',
);
/** "they answered Q2", "they filled in Q5". */
export const ANSWERED_VERBS = list('answered|answer|answers|responded to|respond to|responds to|filled in|filled out');
/** the words of a comparison, before "points": "more than 2 points". */
export const COMPARING_WORDS = list('more|less|fewer|than|at|least|most|over|under|above|below|exactly');
/** "did not", "will not", "is not". */
export const NEGATED_AUXILIARIES = list('did not|does not|do not|will not|would not|are not|is not');
/** the verb a yes/no question starts with ("Do you need a laptop?"). */
export const AUXILIARIES = list('do|does|did|will|would|are|is|have|can');
/** what an open answer says: refused. */
export const SAYS_VERBS = list('mentions|mention|says|talks|refers|contains|includes');
/** "does not include", "!=". */
export const EXCLUDES_WORDS = list(
  'does not include|does not contain|do not include|did not include|does not equal|is not equal to|not equal to|!=|excludes|does not have',
);
/** "includes", "contains", "has selected". */
export const INCLUDES_WORDS = list(
  'includes any of|contains any of|includes|include|included|contains|contain|has selected|has chosen|has ticked|has checked|had selected',
);
/** "is", "was", "gets", "comes back". */
export const COPULAS = list('is|was|are|were|gets|got|has|had|will be|comes back');
/** "skipped", "left blank", "empty". */
export const SKIPPED_WORDS = list('skipped|unanswered|left unanswered|left blank|left empty|empty|blank|been skipped');
/** "rated", "set to", "answered with". */
export const RATED_AS = list('rated|scored|given|marked as|marked|set to|answered with|answered as');
/** "equal to", "=", "exactly". */
export const EQUALS_WORDS = list('equal to|equals|equal|=|exactly|set to|matches');
/** a ranking's answer, the option ranked first: "ranked first", "at the top". */
export const RANKED_FIRST = list('ranked first|ranked top|at the top|on top|first|as first|as the top choice');
/** "4 or more", "5+". */
export const OR_MORE = list('or more|or higher|or above|or better|or greater|and above|and up|+');
/** "2 or less", "and under". */
export const OR_LESS = list('or less|or lower|or below|or fewer|or worse|and below|and under');
/** what starts a condition after its action: "skip to Q4 if …", "… for anyone who …". */
export const CONDITION_STARTS = list('if|when|whenever|in case|where|for anyone who|for those who');
/** an arrow and where it goes: "Yes -> Q4", "No goes to end". */
export const ARROWS = list('->|:|goes to|go to|to|skip to|jump to|then|=|means');
/** the first word of an action. */
export const ACTION_STARTS = list(
  'skip|jump|go|move|continue|proceed|end|finish|stop|send|take|submit|terminate|exit|branch|redirect|route',
);
/** "end", "finish", "submit". */
export const ENDING_VERBS = list('end|finish|stop|submit|terminate|exit|close|complete');
/** "go to the end", "skip to end". */
export const TO_END_VERBS = list('go to|skip to|jump to|move to|send them to|take them to|branch to|redirect to');
/** "or", "and if", between two conditions. */
export const CONDITION_JOINERS = list('or if|or when|or|and if|and when|and also|and');
/** what follows a slide that is its answer: "Q2 rating", "Q5 comments". */
export const ANSWER_NOUNS = list('answer|rating|score|response|feedback|comment|comments|text');
/** "the option", "answer", "choice" before an option. */
export const OPTION_NOUNS = list('the option|the options|option|options|the answer|answer|choice|the choice');
