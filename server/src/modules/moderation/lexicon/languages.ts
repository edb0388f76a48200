/**
 * Frequent function words of the seven supported languages, folded as the filter folds text (lower
 * case, no accents). The filter guesses a text's own language from them — only when a term that is
 * vulgar in one language and ordinary in another is found, so it costs nothing otherwise: an audience
 * writes in any language, whatever the poll's. Written for Pollkit.
 */
export const FUNCTION_WORDS: Readonly<Record<string, string>> = {
  en: `the and is are was were this that these those what you your with have has had for not but they them
    their it its of to in on my me we our us so just be been will would can could should do does did an at
    all who why how there here about from such very really than then when which because or if no yes im
    dont doesnt isnt cant wont thats whats youre theyre ive
    get got make like know think need want please thanks thank good great much more some any only also still again after before every`,
  de: `der die das und ist nicht ein eine einen einem einer ich du er sie wir ihr mit auf fur von zu den dem
    des im auch noch schon aber oder wie was wer warum sehr wieder heute diese dieser dieses hier mal doch
    ja nein kein keine bin bist sind war hat haben wird man immer nur jetzt dass weil wenn kann mir mich
    dich dir uns euch sein seine ihre am zum zur vom beim
    bitte danke gut kann konnen wollen muss mussen machen gibt geht alle viel mehr nach uber unter durch gegen ohne etwas nichts`,
  fr: `le la les un une des du de et est qu que qui pas ne je tu il elle nous vous ils elles on ce cette ces
    avec pour dans sur mais ou tres plus tout toute tous suis sont ai avoir fait quel quelle quels encore moi
    toi seul seule cest jai au aux son sa ses leur leurs mon ma mes ton ta tes votre nos vos aussi bien
    comme rien ici quoi pourquoi
    peut peux pouvons faut faire merci bien beaucoup trop sans chez depuis pendant toujours jamais vraiment etre etait ont va vais allez`,
  es: `el la los las un una unos unas de del y que es en no por para con se lo le les su sus mas pero como
    esta este esto eso esa muy ya hay soy eres son fue yo tu mi me te nos otra otro vez todo todos porque
    cuando donde quien al ese estos estas tiene tengo hace hoy aqui algo nada ni sin sobre tambien esta
    puede puedo podemos hacer gracias bien mucho siempre nunca entre desde hasta ser estar vamos`,
  pt: `o os as um uma uns umas de do da dos das e que nao em no na nos nas por para com se mais mas como
    esta este isso isto essa esse muito ja eu voce ele ela sou foi tem estou meu minha seu sua outra outro
    vez tudo quando onde quem novo nova ao aos pelo pela pelos pelas tambem aqui agora entao ate sem sobre
    vai vou
    pode posso podemos fazer obrigado obrigada bem sempre nunca entre desde ser estar tenho ainda`,
  it: `il lo la i gli le un una uno di del della dello dei degli delle e che non per con si ma come questo
    questa quello quella sono sei ho hai ha abbiamo molto gia io tu lui lei noi voi mi ti ci anche ancora
    piu solo tutto tutti cosi dove quando chi perche al allo alla ai agli alle dal dalla nel nella sul
    sulla da in
    possiamo posso puoi puo fare grazie bene sempre mai tra fra essere stato adesso oggi domani qui`,
  nl: `de het een en is van ik je jij u we wij zij ze niet met op voor dat die dit maar ook nog al wat waarom
    hoe wie er naar om te zijn was heb hebt heeft weer echt zo bij uit kan wil moet deze mijn jouw ons
    onze geen wel dan toch nu hier daar waar
    kunnen kunt moeten willen doen bedankt goed veel meer altijd nooit tussen vandaag morgen graag alsjeblieft`,
};
