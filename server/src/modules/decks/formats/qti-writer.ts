import type {
  Media,
  MultipleChoiceSlide,
  OpenEndedSlide,
  Option,
  QuizSlide,
  RankingSlide,
  ScaleSlide,
  Slide,
} from '@pollkit/contracts';
import { strToU8, zipSync } from 'fflate';
import type { DeckFile, DeckToWrite, SkippedSlide } from '../deck-file.js';
import { escapeXml, xmlCharacters } from './moodle-xml-writer.js';
import { collapseWhitespace } from './plain-text.js';

const QTI_NAMESPACE = 'http://www.imsglobal.org/xsd/imsqti_v2p1';
const QTI_SCHEMA = 'http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd';
const CP_NAMESPACE = 'http://www.imsglobal.org/xsd/imscp_v1p1';
const CP_SCHEMA = 'http://www.imsglobal.org/xsd/imscp_v1p1.xsd';
const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';
const MATCH_CORRECT = 'http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct';
const RESPONSE = 'RESPONSE';
const TEST_FILE = 'test.xml';
/** Local date parts, so that the zip's DOS timestamps, and so its bytes, are the same in every time zone. */
const ENTRY_DATE = new Date(2000, 0, 1);

/** One `assessmentItem` file of the package. */
interface QtiItem {
  identifier: string;
  href: string;
  xml: string;
  /** Quiz items only: what the test says of them (time limit, points as the item's weight). */
  quiz?: { timeLimitSec: number; points: number };
}

/**
 * A deck as an IMS QTI 2.1 content package (a zip): `imsmanifest.xml` (IMS CP 1.1), `test.xml` (an
 * `assessmentTest` with the items in deck order, one linear part), `items/*.xml` (one
 * `assessmentItem` a slide, one a statement for a scale with statements) and `report.json` (the
 * skipped slides, `[]` when none).
 *
 * quiz: choiceInteraction with its correct response, scored by the standard match_correct template
 * (its time limit and points go on the test's item reference); multiple_choice: choiceInteraction
 * without one (a poll has no right answer); ranking: orderInteraction; open_ended:
 * extendedTextInteraction; scale: sliderInteraction over integers; content: an item with a body and
 * no interaction, which QTI allows (an informational item); qa: skipped.
 *
 * Slide ids may start with a digit, which QTI identifiers (XML NCNames) may not, so identifiers are
 * built from them (`qtiIdentifier`) and the slide id kept as the item's `label`.
 */
export function writeQti(deck: DeckToWrite): DeckFile {
  const items: QtiItem[] = [];
  const skipped: SkippedSlide[] = [];
  deck.content.questions.forEach((slide, index) => {
    if (slide.kind === 'qa') {
      skipped.push({
        number: index + 1,
        slideId: slide.id,
        kind: slide.kind,
        message: 'Audience Q&A collects questions from the audience; it is not an assessment item.',
      });
    } else {
      items.push(...itemsOf(slide, deck.language));
    }
  });
  const testIdentifier = `test_${qtiIdentifier(deck.pollId)}`;
  const files: Record<string, Uint8Array> = {
    'imsmanifest.xml': strToU8(manifest(testIdentifier, items)),
    [TEST_FILE]: strToU8(assessmentTest(testIdentifier, deck, items)),
  };
  for (const item of items) files[item.href] = strToU8(item.xml);
  files['report.json'] = strToU8(`${JSON.stringify(skipped, null, 2)}\n`);
  return { body: zipSync(files, { mtime: ENTRY_DATE }), skipped };
}

/**
 * An identifier QTI accepts from a Pollkit id (letters, digits, `_`, `-`), one-to-one: `_` is
 * doubled and `-` becomes `_h`, so `a-b` (`a_hb`) and `a_b` (`a__b`) stay apart; callers put a
 * prefix in front, so it never starts with a digit.
 */
export function qtiIdentifier(id: string): string {
  return id.replace(/[_-]/g, (character) => (character === '_' ? '__' : '_h'));
}

function itemsOf(slide: Exclude<Slide, { kind: 'qa' }>, language: string): QtiItem[] {
  const identifier = `slide_${qtiIdentifier(slide.id)}`;
  const head: ItemHead = { identifier, title: plainTitle(slide.text), label: slide.id, language };
  switch (slide.kind) {
    case 'quiz':
      return [{ ...quizItem(head, slide), quiz: { timeLimitSec: slide.timeLimitSec, points: slide.points } }];
    case 'multiple_choice':
      return [choicePollItem(head, slide)];
    case 'ranking':
      return [rankingItem(head, slide)];
    case 'open_ended':
      return [openEndedItem(head, slide)];
    case 'scale':
      return scaleItems(head, slide);
    case 'content':
      return [
        item(
          head,
          [],
          [`<p>${inlineText(slide.text)}</p>`, ...(slide.media ? [`<p>${mediaXml(slide.media)}</p>`] : [])],
        ),
      ];
  }
}

interface ItemHead {
  identifier: string;
  title: string;
  label: string;
  language: string;
}

function quizItem(head: ItemHead, slide: QuizSlide): QtiItem {
  const correct = slide.options.filter((option) => slide.correctOptionIds.includes(option.id));
  const cardinality = correct.length === 1 ? 'single' : 'multiple';
  return item(
    head,
    [
      `<responseDeclaration identifier="${RESPONSE}" cardinality="${cardinality}" baseType="identifier">`,
      '  <correctResponse>',
      ...correct.map((option) => `    <value>${choiceIdentifier(option)}</value>`),
      '  </correctResponse>',
      '</responseDeclaration>',
      '<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float" normalMaximum="1">',
      '  <defaultValue>',
      '    <value>0</value>',
      '  </defaultValue>',
      '</outcomeDeclaration>',
    ],
    choiceInteraction(slide, cardinality === 'single' ? 1 : 0),
    `<responseProcessing template="${MATCH_CORRECT}"/>`,
  );
}

function choicePollItem(head: ItemHead, slide: MultipleChoiceSlide): QtiItem {
  const cardinality = slide.type === 'single' ? 'single' : 'multiple';
  return item(
    head,
    [`<responseDeclaration identifier="${RESPONSE}" cardinality="${cardinality}" baseType="identifier"/>`],
    choiceInteraction(slide, slide.type === 'single' ? 1 : 0),
  );
}

/** `maxChoices` 0: as many as the respondent likes. */
function choiceInteraction(slide: QuizSlide | MultipleChoiceSlide, maxChoices: number): string[] {
  return [
    `<choiceInteraction responseIdentifier="${RESPONSE}" shuffle="false" maxChoices="${maxChoices}">`,
    `  <prompt>${promptXml(slide)}</prompt>`,
    ...slide.options.map((option) => `  ${simpleChoice(option)}`),
    '</choiceInteraction>',
  ];
}

function rankingItem(head: ItemHead, slide: RankingSlide): QtiItem {
  return item(
    head,
    [`<responseDeclaration identifier="${RESPONSE}" cardinality="ordered" baseType="identifier"/>`],
    [
      `<orderInteraction responseIdentifier="${RESPONSE}" shuffle="false">`,
      `  <prompt>${promptXml(slide)}</prompt>`,
      ...slide.options.map((option) => `  ${simpleChoice(option)}`),
      '</orderInteraction>',
    ],
  );
}

/**
 * QTI 2.1 has no maximum length for a text answer: `patternMask` (an XML Schema regular
 * expression, which matches the whole answer) refuses longer ones, `expectedLength` sizes the box.
 */
function openEndedItem(head: ItemHead, slide: OpenEndedSlide): QtiItem {
  return item(
    head,
    [`<responseDeclaration identifier="${RESPONSE}" cardinality="single" baseType="string"/>`],
    [
      `<extendedTextInteraction responseIdentifier="${RESPONSE}" expectedLength="${slide.maxLength}" patternMask="${escapeXml(`[\\s\\S]{0,${slide.maxLength}}`)}">`,
      `  <prompt>${promptXml(slide)}</prompt>`,
      '</extendedTextInteraction>',
    ],
  );
}

/** One item for the scale, or one a statement (each is rated on its own), all with the scale's labels. */
function scaleItems(head: ItemHead, slide: ScaleSlide): QtiItem[] {
  const declarations = [`<responseDeclaration identifier="${RESPONSE}" cardinality="single" baseType="integer"/>`];
  const slider = (prompt: string) => [
    `<sliderInteraction responseIdentifier="${RESPONSE}" lowerBound="${slide.min}" upperBound="${slide.max}" step="1">`,
    `  <prompt>${prompt}</prompt>`,
    '</sliderInteraction>',
  ];
  const labels = scaleLabels(slide);
  if (slide.statements.length === 0) return [item(head, declarations, [...slider(promptXml(slide)), ...labels])];
  return slide.statements.map((statement) =>
    item(
      {
        ...head,
        identifier: `${head.identifier}_s${qtiIdentifier(statement.id)}`,
        title: plainTitle(`${slide.text} — ${statement.text}`),
        label: `${slide.id}/${statement.id}`,
      },
      declarations,
      [`<p>${promptXml(slide)}</p>`, ...slider(inlineText(statement.text)), ...labels],
    ),
  );
}

/** A slider has no end labels in QTI 2.1: they follow it as a list (`1: Not at all`). */
function scaleLabels(slide: ScaleSlide): string[] {
  const ends = [
    [slide.min, slide.minLabel],
    [slide.max, slide.maxLabel],
  ] as const;
  const present = ends.filter(([, label]) => label !== undefined && label.trim() !== '');
  if (present.length === 0) return [];
  return ['<ul>', ...present.map(([value, label]) => `  <li>${value}: ${inlineText(label!)}</li>`), '</ul>'];
}

function item(head: ItemHead, declarations: string[], body: string[], processing?: string): QtiItem {
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<assessmentItem xmlns="${QTI_NAMESPACE}" xmlns:xsi="${XSI_NAMESPACE}"`,
    `    xsi:schemaLocation="${QTI_NAMESPACE} ${QTI_SCHEMA}"`,
    `    identifier="${head.identifier}" title="${escapeXml(head.title)}" label="${escapeXml(head.label)}"`,
    `    xml:lang="${escapeXml(head.language)}" adaptive="false" timeDependent="false">`,
    ...declarations.map((line) => `  ${line}`),
    '  <itemBody>',
    ...body.map((line) => `    ${line}`),
    '  </itemBody>',
    ...(processing ? [`  ${processing}`] : []),
    '</assessmentItem>',
    '',
  ].join('\n');
  return { identifier: head.identifier, href: `items/${head.identifier}.xml`, xml };
}

function choiceIdentifier(option: Option): string {
  return `choice_${qtiIdentifier(option.id)}`;
}

function simpleChoice(option: Option): string {
  const media = option.media ? `<br/>${mediaXml(option.media)}` : '';
  return `<simpleChoice identifier="${choiceIdentifier(option)}">${inlineText(option.label)}${media}</simpleChoice>`;
}

/** The slide's text and media as inline content (what `prompt` and `p` hold). */
function promptXml(slide: Slide): string {
  return slide.media ? `${inlineText(slide.text)}<br/>${mediaXml(slide.media)}` : inlineText(slide.text);
}

/** Plain text as inline XHTML: escaped, line breaks kept as `<br/>`. */
function inlineText(text: string): string {
  return escapeXml(text.replace(/\r\n?/g, '\n')).replace(/\n/g, '<br/>');
}

/** An image refers to its stored copy (the original address when none); other media become a link. */
function mediaXml(media: Media): string {
  if (media.type === 'image') {
    const size = `${media.width ? ` width="${media.width}"` : ''}${media.height ? ` height="${media.height}"` : ''}`;
    return `<img src="${escapeXml(media.storedUrl ?? media.url)}" alt=""${size}/>`;
  }
  return `<a href="${escapeXml(media.url)}">${escapeXml(media.url)}</a>`;
}

/** Titles are attributes of type normalizedString: one line. */
function plainTitle(text: string): string {
  return collapseWhitespace(xmlCharacters(text));
}

function assessmentTest(identifier: string, deck: DeckToWrite, items: QtiItem[]): string {
  const title = escapeXml(plainTitle(deck.title));
  const itemRefs = items.flatMap((entry) => {
    const ref = `<assessmentItemRef identifier="${entry.identifier}" href="${entry.href}"`;
    if (!entry.quiz) return [`${ref}/>`];
    return [
      `${ref}>`,
      `  <timeLimits maxTime="${entry.quiz.timeLimitSec}"/>`,
      `  <weight identifier="POINTS" value="${entry.quiz.points}"/>`,
      '</assessmentItemRef>',
    ];
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<assessmentTest xmlns="${QTI_NAMESPACE}" xmlns:xsi="${XSI_NAMESPACE}"`,
    `    xsi:schemaLocation="${QTI_NAMESPACE} ${QTI_SCHEMA}"`,
    `    identifier="${identifier}" title="${title}" toolName="Pollkit">`,
    '  <outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>',
    // Linear, answered one at a time: the way a live session shows the slides.
    '  <testPart identifier="part_1" navigationMode="linear" submissionMode="individual">',
    `    <assessmentSection identifier="section_1" title="${title}" visible="true">`,
    ...itemRefs.map((line) => `      ${line}`),
    '    </assessmentSection>',
    '  </testPart>',
    // The deck's score: each quiz item's SCORE (0 or 1) times its points.
    '  <outcomeProcessing>',
    '    <setOutcomeValue identifier="SCORE">',
    '      <sum>',
    '        <testVariables variableIdentifier="SCORE" weightIdentifier="POINTS"/>',
    '      </sum>',
    '    </setOutcomeValue>',
    '  </outcomeProcessing>',
    '</assessmentTest>',
    '',
  ].join('\n');
}

function manifest(testIdentifier: string, items: QtiItem[]): string {
  const resource = (identifier: string) => `resource_${identifier}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<manifest xmlns="${CP_NAMESPACE}" xmlns:xsi="${XSI_NAMESPACE}"`,
    `    xsi:schemaLocation="${CP_NAMESPACE} ${CP_SCHEMA}"`,
    `    identifier="manifest_${testIdentifier}">`,
    '  <metadata>',
    '    <schema>QTIv2.1 Package</schema>',
    '    <schemaversion>1.0.0</schemaversion>',
    '  </metadata>',
    '  <organizations/>',
    '  <resources>',
    `    <resource identifier="${resource(testIdentifier)}" type="imsqti_test_xmlv2p1" href="${TEST_FILE}">`,
    `      <file href="${TEST_FILE}"/>`,
    ...items.map((entry) => `      <dependency identifierref="${resource(entry.identifier)}"/>`),
    '    </resource>',
    ...items.flatMap((entry) => [
      `    <resource identifier="${resource(entry.identifier)}" type="imsqti_item_xmlv2p1" href="${entry.href}">`,
      `      <file href="${entry.href}"/>`,
      '    </resource>',
    ]),
    '  </resources>',
    '</manifest>',
    '',
  ].join('\n');
}
