import type { BranchCondition } from '@pollkit/contracts';

export type Operator = BranchCondition['if']['operator'];

export const ORDINALS = list('first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth');
export const NUMBER_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
export const SUBJECTS = list(
  'they|someone|somebody|anyone|anybody|people|respondents|voters|participants|users|students|attendees|customers|employees|you|he|she|i|we',
);
export const SUBJECT_NOUNS = list('respondent|voter|participant|user|person|student|attendee|customer|employee|taker');
/** Nouns for the respondents themselves ("colleagues who…", "a New Joiner"), which a slide's text may also use. */
export const PEOPLE_NOUNS = list(
  'colleague|colleagues|friend|friends|member|members|staff|delegate|delegates|guest|guests|hire|hires|starter|starters|joiner|joiners|client|clients|participant|participants|attendee|attendees|employee|employees|customer|customers|respondent|respondents|person|persons|individual|individuals',
);

export const SLIDE_EXPECTED =
  'a slide, such as Q2, "question 2", "slide 3", "the second question", a slide id, or the slide\'s text in quotes';
export const ACTION_EXPECTED =
  'an action: "skip to Q4", "jump to slide 5", "go to the last question" or "end the poll"';
export const CONDITION_EXPECTED =
  'a condition: "Q2 is below 3", "Q1 is \\"Pizza\\"", "they chose any of \\"A\\", \\"B\\" on Q1" or "they did not answer Q2"';

/** The words before a rating that say how it is compared ("below 3", "at least 4"). */
export const COMPARISON_PREFIXES = new Map<string, Operator>(
  (
    [
      ['less_than', ['below', 'under', 'less than', 'lower than', 'smaller than', 'fewer than', '<']],
      ['greater_than', ['above', 'over', 'more than', 'greater than', 'higher than', 'bigger than', '>']],
      ['at_least', ['at least', 'no less than', 'not less than', 'not below', '>=']],
      ['at_most', ['at most', 'no more than', 'not more than', 'not above', '<=']],
      ['equals', ['exactly', 'equal to', 'equals', '=']],
    ] as const
  ).flatMap(([operator, words]) => words.map((word) => [word, operator] as const)),
);

/** The verbs of a jump ("skip to Q4"), the words that may follow them, and the word before the slide. */
export const MOVE_VERBS = list(
  'skip|jump|go|move|continue|proceed|send them|take them|send the respondent|take the respondent|branch|redirect|route',
);
export const MOVE_ADVERBS = ['straight', 'directly', 'right', 'ahead', 'forward'];
export const MOVE_TO = ['to', 'on to', 'onto', 'at', 'with', 'straight to', '->', 'over to'];

/** What a respondent finishes: "end the survey", "submit the form". */
export const ENDINGS = ['poll', 'survey', 'questionnaire', 'quiz', 'form', 'session', 'test'];

/** How an answer is said to be chosen ("is selected", "was ticked"). */
export const CHOSEN_WORDS = ['selected', 'chosen', 'picked', 'ticked', 'checked', 'marked', 'the answer', 'the choice'];

/** Words after which a slide's description ends: its verb, a preposition, a connective. */
export const DESCRIPTION_STOPS = new Set(
  list(
    'is|was|are|were|has|had|gets|got|equals|includes|contains|on|in|for|at|then|if|and|or|not|did|does|above|below|under|over|a|an',
  ),
);
/** Words of a description that only say "a slide" or point at it. */
export const DESCRIPTION_FILLERS = new Set(
  list('the|their|our|your|question|slide|rating|score|answer|section|page|one|with|about|of|to|for|you|we|they'),
);

/** Words that end a condition rather than name an option ("If Q1 is pizza, then skip…"). */
export const NOT_OPTION_WORDS = new Set(
  list('then|skip|jump|go|end|and|or|if|to|on|in|for|at|the|a|an|not|is|was|option|answer|question|slide'),
);

/**
 * The words of the instruction language, for suggestions: a word the parser could not read is
 * compared with these (and with the poll's ids and labels) to find the reading it was probably
 * meant as. Kept beside the grammar; a word missing here only means no suggestion for its typos.
 */
export const KEYWORDS = [
  ...list(
    'if|when|whenever|then|otherwise|else|and|or|not|is|was|are|were|skip|jump|go|move|continue|proceed|end|finish|stop|submit|to|the|poll|survey|quiz|form|questionnaire|question|slide|section|page|last|chose|choose|chooses|picked|selected|selects|ticked|checked|voted|answered|answer|rated|rates|scored|gave|skipped|blank|empty|includes|contains|equals|below|under|above|over|least|most|more|less|than|exactly|option|any|of|they|respondent|respondents',
  ),
  ...ORDINALS,
  ...NUMBER_WORDS,
];

// --- the vocabulary of instructions as people write them (people.ts, clauses.ts, evidence.ts) ----------

/** A list of words or phrases written as one string, `|` between them. */
export function list(phrases: string): string[] {
  return phrases.split('|').map((phrase) => phrase.trim());
}

/** Words that end a respondent's walk: "end the survey", "finish the quiz there", "they're done". */
export const END_VERBS = list('end|ends|ended|ending|finish|finishes|finished|stop|stops|submit|terminate|close|exit');
/** Nouns of what ends: "end the survey", "the end of the form". */
export const ENDING_NOUNS = list('survey|quiz|poll|form|questionnaire|test|session|it|there|here|everything');
/** Whole phrases that mean the end, wherever they stand in an action. */
export const END_PHRASES = list(
  "the end|end|the end of the survey|the end of survey|end of survey|end of the survey|end of the quiz|end of quiz|end of the form|the finish|finish|done|they are done|they're done|is finish|is finished|is over|be over|is done",
);
/** Verbs that turn down what a yes/no question offers: "decline a buddy" is its "No". */
export const DECLINING_VERBS = list(
  'decline|declines|declined|refuse|refuses|refused|reject|rejects|rejected|turn down|turns down|turned down|opt out of|opts out of|opted out of|pass on|passes on|passed on|say no to|says no to|said no to|forgo|forgoes|waive|waives|waived',
);
/** Sayings that end the survey for someone, said where a verb of ending would stand. */
export const END_SAYINGS = list(
  'bring the survey to a close|bring the quiz to a close|bring the form to a close|bring the poll to a close|bring it to a close|bring things to a close|bring it to an end|bring the survey to an end|bring the quiz to an end|wrap up|wrap it up|wrap things up|wrap up the survey|let them go|thank them and let them go|be let go|let go',
);
/** Verbs that send a respondent somewhere ("go", "jump", "route"), in any of their forms. */
export const MOVE_CUES = list(
  'go|goes|going|jump|jumps|jumped|skip|skips|send|sends|sent|take|takes|taken|move|moves|moved|head|heads|pass|passes|proceed|proceeds|continue|continues|route|routes|routed|redirect|redirected|direct|directed|bring|brought|arrive|arrives|forward|forwarded|advance|advances|land|lands|get|gets|see|sees|fast-forward|pop|pops|drop|drops|push|bounce|shoot|put|puts|ask|show|hop|hops|steer|steers|funnel|usher|whisk|fast-track|fast-tracked',
);
/** Words between a move verb and where it goes: "go straight on to", "send them right over to". */
export const MOVE_FILLERS = list(
  'straight|directly|direct|right|ahead|immediately|kindly|over|on|them|him|her|they|people|the respondent|respondents|the person|that person|those|everyone|automatically|just|only|instead|also|then|should|be|will|can|may|must|please|pls|forward|along|further|away',
);
/** Prepositions before a target: "to", "onto", non-native "at". */
export const TARGET_PREPOSITIONS = list('to|onto|into|at|until|till|towards|toward');
/** Where a target's description stops: a connective or a reason follows. */
export const TARGET_STOPS = new Set(
  list(
    ',|;|.|!|?|(|so|because|since|as|if|when|whenever|and|but|then|instead|please|pls|otherwise|where|while|unless|no|lol|thx|ty|cheers|too|also|either|pls',
  ),
);
/** Words that start a condition after its action: "skip to Q4 if …", "end it for anyone who …". */
export const CONDITION_OPENERS = list(
  'if|when|whenever|in case|where|for anyone who|for anybody who|for everyone who|for those who|for people who|for respondents who|for someone who|for anyone that|for those that|for people that|for customers who|for students who|for anyone|for those|for people',
);
/** Words that start a rule for whatever earlier rules of its slide did not catch. */
export const OTHERWISE_WORDS = list(
  'otherwise|else|or else|everyone else|everybody else|anyone else|anybody else|all others|all the others|the others|others|the rest|everything else|anything else|in all other cases|in any other case|in other cases|in every other case|all other answers|any other answer|remaining respondents|all other respondents|all remaining respondents|all other|all remaining',
);
/** Phrases that say nothing changes: "otherwise carry on as normal". Such clauses add no rule. */
export const NO_OP_PHRASES = list(
  'as normal|as usual|like normal|like usual|normally|continue normal|carry on|carries on|no changes|no change|nothing changes|as before|as planned|as they would|in order|the normal flow|the normal way|the usual way|the usual route|next question as normal|sequentially|in sequence|default order|default sequence|default flow|the full thing|the full survey|the whole thing|the whole survey|everything as normal|unchanged|proceed as normal|follow the default|normal|no jump|no skip|stay',
);
/** Words that mean an answer was left empty: "left blank", "skipped", "without answering". */
export const BLANK_WORDS = list(
  'blank|empty|unanswered|skipped|skips|skip|no answer|without answering|without an answer|without a response|nothing|leave empty|left empty|leaves empty|leave it empty|no response|non-response|do not bother',
);
/** Verbs of answering, which "not" turns into leaving blank: "doesn't answer", "did not fill in". */
export const ANSWER_VERBS = list(
  'answer|answers|answered|respond|responds|responded|reply|replies|fill|fills|filled|fill in|fill out|complete|completes|completed|give answer|give an answer|gives an answer|rate|rates|rated|pick anything|tick anything|select anything|choose anything|write anything|write something|writes something|ask anything|ask a question|asks a question|post a question|posts a question',
);
/** Verbs of choosing: "picks", "ticked", "says", "went with", "is on". */
export const CHOICE_VERBS = list(
  'pick|picks|picked|choose|chooses|chose|chosen|select|selects|selected|selecting|tick|ticks|ticked|check|checks|checked|mark|marks|marked|vote|votes|voted|say|says|said|answer|answers|answered|reply|replies|replied|respond|responds|responded|opt|opts|opted|go with|goes with|went with|is|are|was|were|=|equals|:|choice|choosing|use|uses|using|used|on|in|with|at|for|put|puts|rank|ranks|ranked|give|gives|gave|need|needs|take|takes|took|want|wants|ask|asks|asked|contact|contacted|attend|attended|join|joining|joined|from',
);
/** Words that negate what follows them in a condition: "did not pick", "isn't", "without". */
export const NEGATIONS = list('not|never|no longer|without|except|other than|anything but|apart from|none of|!=');
/** A quiz answer that is right or wrong, as teachers say it. */
export const RIGHT_WORDS = list('right|correct|correctly|correct answer|the right answer');
export const WRONG_WORDS = list(
  'wrong|incorrect|incorrectly|wrongly|the wrong answer|a wrong answer|fail|fails|failed|miss|misses|missed',
);
/** "Ranked first" on a ranking slide, and the places a condition cannot test. */
export const FIRST_PLACE = list(
  'first|top|1st|number one|# 1|#1|no 1|highest|on top|at the top|first place|first choice|top choice|the top|top-ranked|top ranked|highest-ranked|ranked 1',
);
export const OTHER_PLACES = list('last|bottom|second|third|lowest|at the bottom|last place');
/** Net Promoter groups on a 0–10 scale: their ratings, as product people use them. */
export const NPS_GROUPS: Record<string, [number, number]> = {
  detractor: [0, 6],
  detractors: [0, 6],
  passive: [7, 8],
  passives: [7, 8],
  neutral: [7, 8],
  neutrals: [7, 8],
  promoter: [9, 10],
  promoters: [9, 10],
};
/** Words that turn a number into a comparison, with how: `<` below, `>` above, `<=`, `>=`. */
export const RATING_BELOW = list(
  'below|under|less than|less then|lower than|lower then|smaller than|smaller as|fewer than|<|beneath|underneath',
);
export const RATING_ABOVE = list(
  'above|over|more than|more then|greater than|higher than|higher then|bigger than|bigger as|bigger then|>|better than',
);
export const RATING_AT_MOST = list(
  'at most|no more than|not more than|not above|<=|max|maximum|up to|or less|or lower|or below|or under|or fewer|or worse|and below|and under|and lower|less or equal|less or equal to|lower or equal|smaller or equal|or smaller',
);
export const RATING_AT_LEAST = list(
  'at least|no less than|not less than|not below|>=|min|minimum|or more|or higher|or above|or better|or greater|or over|and above|and up|and higher|+|more or equal|bigger or equal|greater or equal|higher or equal|or bigger',
);
/** Words for a rating on a scale ("a score of 3", "gives us a 9"). */
export const RATING_WORDS = list(
  'rating|rate|rates|rated|score|scores|scored|note|mark|marks|grade|stars|star|points|gives|give|gave|giving|out of',
);
/** Words that never help to name a slide by its text: too common to tell slides apart. */
export const STOP_WORDS = new Set(
  list(
    'a|an|the|and|or|of|to|in|on|at|for|with|by|from|about|is|are|was|were|be|been|being|do|does|did|done|have|has|had|you|your|yours|we|our|us|they|their|them|he|him|his|she|her|it|its|i|me|my|this|that|these|those|there|here|what|which|who|whom|how|why|when|where|would|will|shall|should|can|could|may|might|must|if|then|so|as|any|all|some|each|every|no|not|yes|up|out|into|over|under|again|very|just|only|also|too|than|please|question|questions|slide|slides|one|ones|bit|part|page|section|box|screen|step|item|thing|stuff|answer|answers|respond|response|people|person|someone|anyone|everyone|everybody|anybody|somebody|respondent|respondents|user|users|customer|customers|student|students|folks|folk|survey|quiz|form|poll|next|go|goes|skip|jump|send|take|straight|directly|get|like|really|want|need|lets|let|make|sure|hi|hey|hello|ok|okay|yeah|lol|ty|thx|pls|new|asking|whether|more|less|can|cannot|other|others|else|them|well',
  ),
);
/** Words that start a content slide's job ("the welcome", "the intro") or point at the last one. */
export const LAST_WORDS = list('last|final|closing');
export const NEXT_WORDS = list('next|following|subsequent');
/** Words that send a respondent back, which skip logic cannot do. */
export const BACKWARD_WORDS = list('back|again|previous|earlier|before|re-ask|reask|repeat|return to|go back');
/** Actions other than a jump or the end, which skip logic cannot take. */
export const OTHER_ACTIONS = list(
  'email|e-mail|mail|notify|notification|ping|message|alert|call|sms|text them|show a|show them a|display|popup|pop-up|pop up|link|tooltip|tool tip|hint|banner|explaining|randomise|randomize|shuffle|points|reward|discount|coupon|ticket|escalate|flag|tag|assign|trigger|triggers|webhook|order',
);
/** Words that say what a written answer says, which skip logic cannot test. */
export const TEXT_WORDS = list(
  'longer than|shorter than|is about|are about|answer is|answers are|mention|mentions|mentioned|mentioning|say something|says something|write about|writes about|wrote about|talk about|talks about|talked about|complain|complains|complained|contain|contains|containing|includes the word|the word|keyword|keywords|swear|rude|negative|positive|sentiment|long answer|short answer|more than',
);
/** What an open answer is said to say: on a slide of written answers, a test of its text, which is refused. */
export const OPEN_SAYS = list('says|say|said|writes|wrote|types|typed|is|are|contains|includes|mentions|=|reads');
/** Words that join two conditions that must both hold: refused, skip logic tests one answer per rule. */
export const BOTH_WORDS = list(
  'both|and also|as well as|and who also|and also who|plus|in addition|together with|along with|and they|and who|and if they|at the same time',
);
/** Politeness and chatter at the start of a clause, dropped before reading it. */
export const OPENERS = list(
  "hey|hi|hello|hiya|hiii|hii|morning|good morning|dear|ok|okay|so|so basically|basically|quick one|quick ask|quick skip logic ask|one more|last thing|also|and|note|fyi|pls|please|could you|can you|can we|could we|would you|i would like|i'd like|we want to|we'd like|let's|make sure|please make sure|make it so|we need|i need|the rule is|rule|logic|skip logic|branching|routing|kindly",
);

/** Words that say a respondent does not need some slides: what they say is skipped, not tested. */
export const SKIP_REMARKS = list(
  'do not need|does not need|shall not be asked|shall not be required to complete|not be required to complete|shall not be presented with|need not be asked|need not|did not need|will not need|would not need|wo not need|no need for|no need to ask about|no need to ask them about|no need to see|do not need to see|does not need to see|need not see|have no need for|bypassing|skipping|without the|instead of|should not see|should not get|should not be asked|do not show them|does not see|do not see',
);
/** Words that point back at the options of the clause before ("didn't tick either of those"). */
export const ANAPHORA = list(
  'either of those|either of them|any of those|any of them|either of these|any of these|either one',
);
/** Words that repeat the action of the rule before: "…, same thing", "them too". */
export const SAME_ACTION = list(
  'same thing|same here|same for them|same if|same when|same for|the same|likewise|as well|too',
);
/** Typing slips of the grammar's own words, as people make them. */
export const TYPOS: Record<string, string> = Object.fromEntries(
  'skp>skip sikp>skip jmp>jump otherwsie>otherwise otherwize>otherwise othewise>otherwise otherise>otherwise esle>else blnak>blank unansered>unanswered unanswerd>unanswered answerd>answered anwser>answer anwsered>answered slected>selected selcted>selected choosed>chose finsh>finish fnish>finish surevy>survey servey>survey questoin>question qustion>question thn>than lesser>less em>them peeps>people ppl>people goto>go-to'
    .split(' ')
    .map((pair) => pair.split('>')),
);
/** Words people use for a slide that its text does not have ("come back" for "Will you attend…?"). */
export const SYNONYMS: Record<string, string[]> = {
  come: ['attend', 'return'],
  coming: ['attend', 'return'],
  return: ['attend', 'come'],
  happy: ['satisfied', 'satisfaction'],
  unhappy: ['satisfied', 'dissatisfied'],
  satisfaction: ['satisfied'],
  reach: ['contact'],
  reached: ['contact'],
  why: ['reason'],
  reason: ['why'],
  remember: ['remembered', 'recall'],
  reflection: ['remember'],
  reflect: ['remember'],
  recall: ['remember'],
  recommend: ['likely', 'recommend'],
  nps: ['recommend', 'likely'],
  csat: ['rate', 'support'],
  roadmap: ['build', 'rank'],
  lunch: ['dietary', 'food'],
  food: ['dietary', 'lunch'],
  diet: ['dietary'],
  comments: ['anything', 'else', 'tell'],
  comment: ['anything', 'else', 'tell'],
  equipment: ['laptop', 'extras'],
  kit: ['extras'],
  city: ['attend'],
  grid: ['rate', 'each'],
};
/** Words that name a kind of slide ("the ranking", "the comments box", "the grid"). */
export const KIND_WORDS: Record<string, string[]> = {
  ranking: list('ranking|rank|ranked|ranks|order'),
  open_ended: list('box|comments|comment|essay|text|open|free-text|write-in|written'),
  qa: list('q&a|qa|ask|asks'),
  scale: list('scale|slider|rating|ratings|stars|score'),
  quiz: list('quiz'),
  content: list('intro|introduction|welcome|page|screen|info|information'),
};

/** What a rule cannot test beside the answer (time, device, a second condition after "unless"). */
export const LIMITS = list(
  'unless|except if|except when|except for|seconds|minutes|minute|quickly|slowly|faster|time limit|in time|on time|mobile phone|on mobile|on a phone|on desktop|device|browser|twice|more than once',
);

/** Words that make a clause a condition rather than a heading that only names a slide. */
/** Verbs that say an option was chosen ("picks Sydney", "said No"). */
export const CHOOSING = list(
  'chose|choose|chooses|pick|picks|picked|select|selects|selected|tick|ticks|ticked|say|says|said|is|=',
);
export const TEST_WORDS = [
  ...BLANK_WORDS,
  ...RIGHT_WORDS,
  ...WRONG_WORDS,
  ...NEGATIONS,
  ...Object.keys(NPS_GROUPS),
  ...CHOOSING,
  ...list('answer|answers|answered|rate|rates|rated|give|gives|gave|are'),
];

/** Every word of the vocabulary above: a word outside it and outside the deck names something the poll lacks. */
export const LEXICON_WORDS: ReadonlySet<string> = new Set(
  [
    END_VERBS,
    ENDING_NOUNS,
    END_PHRASES,
    END_SAYINGS,
    DECLINING_VERBS,
    PEOPLE_NOUNS,
    MOVE_CUES,
    MOVE_FILLERS,
    TARGET_PREPOSITIONS,
    CONDITION_OPENERS,
    OTHERWISE_WORDS,
    NO_OP_PHRASES,
    BLANK_WORDS,
    ANSWER_VERBS,
    CHOICE_VERBS,
    NEGATIONS,
    RIGHT_WORDS,
    WRONG_WORDS,
    FIRST_PLACE,
    OTHER_PLACES,
    RATING_BELOW,
    RATING_ABOVE,
    RATING_AT_MOST,
    RATING_AT_LEAST,
    RATING_WORDS,
    BACKWARD_WORDS,
    OTHER_ACTIONS,
    TEXT_WORDS,
    BOTH_WORDS,
    OPENERS,
    SKIP_REMARKS,
    SAME_ACTION,
    Object.keys(NPS_GROUPS),
    Object.keys(SYNONYMS),
    Object.values(KIND_WORDS).flat(),
  ].flatMap((phrases) => phrases.flatMap((phrase) => phrase.split(' '))),
);
