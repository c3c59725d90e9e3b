/**
 * The words of the mails Taskboard sends, in each language the web app speaks (docs/people.md,
 * "Languages"): ICU MessageFormat through FormatJS, as the web app's catalogues. A mail is written in
 * its recipient's language (an invitee without an account: the inviter's), English when they have none.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import { LANGUAGES, type Language } from '../../schemas/records.ts';

const en = {
  someone: 'Someone',
  invitationSubject: '{inviter} invited you to {hasBoard, select, yes {the board {board} in {company}} other {{company}}} on Taskboard',
  invitationBody:
    '{inviter} invited you to join {hasBoard, select, yes {the board {board} in {company}} other {{company}}} on Taskboard.\n\nAccept the invitation (valid 7 days):\n{url}\n\nIf you did not expect this, ignore this mail.',
  resetSubject: 'Reset your Taskboard password',
  resetBody:
    'Someone asked to reset the password of {email} on Taskboard.\n\nChoose a new password (valid 1 hour):\n{url}\n\nIf it was not you, ignore this mail: your password stays as it is.',
  assigned: '{actor} added you to {hasCard, select, yes {“{card}” on {board}} other {a card}}',
  commented: '{actor} commented on {hasCard, select, yes {“{card}” on {board}} other {a card}}',
  replied: '{actor} replied to your comment on {hasCard, select, yes {“{card}” on {board}} other {a card}}',
  cheered: '{actor} cheered you on {hasCard, select, yes {“{card}” on {board}} other {a card}}',
  ruleNotified: 'A board rule tells you about {hasCard, select, yes {“{card}” on {board}} other {a card}}',
  reminder:
    '{hasCard, select, yes {“{card}” on {board}} other {A card}} {reminder, select, startOneHour {starts within an hour} startOneDay {starts within a day} dueOneHour {is due within an hour} other {is due within a day}}',
  mentioned: '{actor} mentioned you on {hasCard, select, yes {“{card}” on {board}} other {a card}}',
  overdue: '{hasCard, select, yes {“{card}” on {board}} other {A card}} is overdue',
  summarySubject: 'Your day on Taskboard: {dueToday, plural, one {# card due today} other {# cards due today}}, {overdue} overdue',
  summaryCard: '“{card}” on {board}, due {due}',
  summaryDueToday: 'Due today',
  summaryDueThisWeek: 'Due this week',
  summaryOverdue: 'Overdue',
  summaryChanges: 'What changed on your cards',
  summaryNothing: 'Nothing',
  summaryFooter: 'You get this summary each morning because you chose a daily summary of your notifications in Taskboard; change it in your account settings.',
  digestSubject: '{count, plural, one {# new notification on Taskboard} other {# new notifications on Taskboard}}',
  digestFooter: 'You get these mails because you turned on email notifications in Taskboard; turn them off in your account settings.',
  appOffSubject: 'Two-step sign-in was turned off for your Taskboard account',
  appOffBody:
    'Two-step sign-in was turned off for {email} on Taskboard{hasAddress, select, yes { (from the address {address})} other {}}: the authenticator app and its recovery codes no longer work, and the password alone signs in.\n\nIf this was you, there is nothing more to do. If it was not, change your password now, end the sessions you do not know and set up two-step sign-in again:\n{url}',
  passkeyRemovedSubject: 'A passkey was removed from your Taskboard account',
  passkeyRemovedBody:
    'The passkey “{name}” of {email} was removed on Taskboard{hasAddress, select, yes { (from the address {address})} other {}}: it no longer signs in.\n\nIf this was you, there is nothing more to do. If it was not, change your password now, end the sessions you do not know and check your passkeys:\n{url}',
  factorsResetSubject: 'An owner reset your two-step sign-in on Taskboard',
  factorsResetBody:
    '{owner}, an owner of {company}, reset the two-step sign-in of {email} on Taskboard: your authenticator app, passkeys and recovery codes no longer work.{required, select, yes {\n\n{company} requires two-step sign-in: you set it up again at your next sign-in.} other {}}\n\nIf you did not ask for this, tell {owner} or another owner of {company}, and check your account:\n{url}',
};
export type MailMessage = keyof typeof en;

const catalogues: Record<Language, Record<MailMessage, string>> = {
  en,
  de: {
    someone: 'Jemand',
    invitationSubject: '{inviter} hat Sie zu {hasBoard, select, yes {dem Board {board} in {company}} other {{company}}} auf Taskboard eingeladen',
    invitationBody:
      '{inviter} hat Sie eingeladen, {hasBoard, select, yes {dem Board {board} in {company}} other {{company}}} auf Taskboard beizutreten.\n\nEinladung annehmen (7 Tage gültig):\n{url}\n\nWenn Sie damit nicht gerechnet haben, ignorieren Sie diese E-Mail.',
    resetSubject: 'Setzen Sie Ihr Taskboard-Passwort zurück',
    resetBody:
      'Jemand hat angefordert, das Passwort von {email} auf Taskboard zurückzusetzen.\n\nNeues Passwort wählen (1 Stunde gültig):\n{url}\n\nWenn Sie das nicht waren, ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist.',
    assigned: '{actor} hat Sie zu {hasCard, select, yes {„{card}“ auf {board}} other {einer Karte}} hinzugefügt',
    commented: '{actor} hat {hasCard, select, yes {„{card}“ auf {board}} other {eine Karte}} kommentiert',
    replied: '{actor} hat auf Ihren Kommentar zu {hasCard, select, yes {„{card}“ auf {board}} other {einer Karte}} geantwortet',
    cheered: '{actor} hat Sie bei {hasCard, select, yes {„{card}“ auf {board}} other {einer Karte}} angefeuert',
    ruleNotified: 'Eine Board-Regel weist Sie auf {hasCard, select, yes {„{card}“ auf {board}} other {eine Karte}} hin',
    reminder:
      '{hasCard, select, yes {„{card}“ auf {board}} other {Eine Karte}} {reminder, select, startOneHour {beginnt innerhalb einer Stunde} startOneDay {beginnt innerhalb eines Tages} dueOneHour {ist innerhalb einer Stunde fällig} other {ist innerhalb eines Tages fällig}}',
    mentioned: '{actor} hat Sie bei {hasCard, select, yes {„{card}“ auf {board}} other {einer Karte}} erwähnt',
    overdue: '{hasCard, select, yes {„{card}“ auf {board}} other {Eine Karte}} ist überfällig',
    summarySubject: 'Ihr Tag auf Taskboard: {dueToday, plural, one {# Karte heute fällig} other {# Karten heute fällig}}, {overdue} überfällig',
    summaryCard: '„{card}“ auf {board}, fällig {due}',
    summaryDueToday: 'Heute fällig',
    summaryDueThisWeek: 'Diese Woche fällig',
    summaryOverdue: 'Überfällig',
    summaryChanges: 'Was sich an Ihren Karten geändert hat',
    summaryNothing: 'Nichts',
    summaryFooter:
      'Sie erhalten diese Zusammenfassung jeden Morgen, weil Sie in Taskboard eine tägliche Zusammenfassung Ihrer Benachrichtigungen gewählt haben; ändern Sie das in Ihren Kontoeinstellungen.',
    digestSubject: '{count, plural, one {# neue Benachrichtigung auf Taskboard} other {# neue Benachrichtigungen auf Taskboard}}',
    digestFooter:
      'Sie erhalten diese E-Mails, weil Sie Benachrichtigungen per E-Mail in Taskboard eingeschaltet haben; schalten Sie sie in Ihren Kontoeinstellungen aus.',
    appOffSubject: 'Die zweistufige Anmeldung Ihres Taskboard-Kontos wurde ausgeschaltet',
    appOffBody:
      'Die zweistufige Anmeldung von {email} auf Taskboard wurde ausgeschaltet{hasAddress, select, yes { (von der Adresse {address})} other {}}: Die Authenticator-App und ihre Wiederherstellungscodes gelten nicht mehr, das Passwort allein meldet an.\n\nWenn Sie das waren, ist nichts weiter zu tun. Wenn nicht, ändern Sie jetzt Ihr Passwort, beenden Sie Sitzungen, die Sie nicht kennen, und richten Sie die zweistufige Anmeldung neu ein:\n{url}',
    passkeyRemovedSubject: 'Ein Passkey wurde aus Ihrem Taskboard-Konto entfernt',
    passkeyRemovedBody:
      'Der Passkey „{name}“ von {email} wurde auf Taskboard entfernt{hasAddress, select, yes { (von der Adresse {address})} other {}}: Er meldet nicht mehr an.\n\nWenn Sie das waren, ist nichts weiter zu tun. Wenn nicht, ändern Sie jetzt Ihr Passwort, beenden Sie Sitzungen, die Sie nicht kennen, und prüfen Sie Ihre Passkeys:\n{url}',
    factorsResetSubject: 'Ein Inhaber hat Ihre zweistufige Anmeldung auf Taskboard zurückgesetzt',
    factorsResetBody:
      '{owner}, Inhaber von {company}, hat die zweistufige Anmeldung von {email} auf Taskboard zurückgesetzt: Ihre Authenticator-App, Passkeys und Wiederherstellungscodes gelten nicht mehr.{required, select, yes {\n\n{company} verlangt die zweistufige Anmeldung: Sie richten sie bei Ihrer nächsten Anmeldung neu ein.} other {}}\n\nWenn Sie das nicht erbeten haben, sagen Sie es {owner} oder einem anderen Inhaber von {company} und prüfen Sie Ihr Konto:\n{url}',
  },
  fr: {
    someone: 'Quelqu’un',
    invitationSubject: '{inviter} vous invite à rejoindre {hasBoard, select, yes {le tableau {board} de {company}} other {{company}}} sur Taskboard',
    invitationBody:
      '{inviter} vous invite à rejoindre {hasBoard, select, yes {le tableau {board} de {company}} other {{company}}} sur Taskboard.\n\nAccepter l’invitation (valable 7 jours)\u202f:\n{url}\n\nSi vous ne vous y attendiez pas, ignorez cet e-mail.',
    resetSubject: 'Réinitialisez votre mot de passe Taskboard',
    resetBody:
      'Quelqu’un a demandé la réinitialisation du mot de passe de {email} sur Taskboard.\n\nChoisir un nouveau mot de passe (valable 1 heure)\u202f:\n{url}\n\nSi ce n’était pas vous, ignorez cet e-mail\u202f: votre mot de passe reste inchangé.',
    assigned: '{actor} vous a ajouté à {hasCard, select, yes {«\u00a0{card}\u00a0» sur {board}} other {une carte}}',
    commented: '{actor} a commenté {hasCard, select, yes {«\u00a0{card}\u00a0» sur {board}} other {une carte}}',
    replied: '{actor} a répondu à votre commentaire sur {hasCard, select, yes {«\u00a0{card}\u00a0» sur {board}} other {une carte}}',
    cheered: '{actor} vous a encouragé sur {hasCard, select, yes {«\u00a0{card}\u00a0» sur {board}} other {une carte}}',
    ruleNotified: 'Une règle du tableau vous signale {hasCard, select, yes {«\u00a0{card}\u00a0» sur {board}} other {une carte}}',
    reminder:
      '{hasCard, select, yes {«\u00a0{card}\u00a0» sur {board}} other {Une carte}} {reminder, select, startOneHour {commence dans moins d’une heure} startOneDay {commence dans moins d’un jour} dueOneHour {arrive à échéance dans moins d’une heure} other {arrive à échéance dans moins d’un jour}}',
    mentioned: '{actor} vous a mentionné sur {hasCard, select, yes {«\u00a0{card}\u00a0» sur {board}} other {une carte}}',
    overdue: '{hasCard, select, yes {«\u00a0{card}\u00a0» sur {board}} other {Une carte}} est en retard',
    summarySubject:
      'Votre journée sur Taskboard\u202f: {dueToday, plural, one {# carte à échéance aujourd’hui} other {# cartes à échéance aujourd’hui}}, {overdue} en retard',
    summaryCard: '«\u00a0{card}\u00a0» sur {board}, échéance {due}',
    summaryDueToday: 'À échéance aujourd’hui',
    summaryDueThisWeek: 'À échéance cette semaine',
    summaryOverdue: 'En retard',
    summaryChanges: 'Ce qui a changé sur vos cartes',
    summaryNothing: 'Rien',
    summaryFooter:
      'Vous recevez ce résumé chaque matin parce que vous avez choisi un résumé quotidien de vos notifications dans Taskboard\u202f; modifiez-le dans les paramètres de votre compte.',
    digestSubject: '{count, plural, one {# nouvelle notification sur Taskboard} other {# nouvelles notifications sur Taskboard}}',
    digestFooter:
      'Vous recevez ces e-mails parce que vous avez activé les notifications par e-mail dans Taskboard\u202f; désactivez-les dans les paramètres de votre compte.',
    appOffSubject: 'La connexion en deux étapes de votre compte Taskboard a été désactivée',
    appOffBody:
      'La connexion en deux étapes de {email} sur Taskboard a été désactivée{hasAddress, select, yes { (depuis l’adresse {address})} other {}}\u202f: l’application d’authentification et ses codes de récupération ne fonctionnent plus, et le mot de passe seul suffit pour se connecter.\n\nSi c’était vous, il n’y a rien d’autre à faire. Sinon, changez votre mot de passe maintenant, terminez les sessions que vous ne reconnaissez pas et réactivez la connexion en deux étapes\u202f:\n{url}',
    passkeyRemovedSubject: 'Une clé d’accès a été supprimée de votre compte Taskboard',
    passkeyRemovedBody:
      'La clé d’accès «\u00a0{name}\u00a0» de {email} a été supprimée sur Taskboard{hasAddress, select, yes { (depuis l’adresse {address})} other {}}\u202f: elle ne permet plus de se connecter.\n\nSi c’était vous, il n’y a rien d’autre à faire. Sinon, changez votre mot de passe maintenant, terminez les sessions que vous ne reconnaissez pas et vérifiez vos clés d’accès\u202f:\n{url}',
    factorsResetSubject: 'Un propriétaire a réinitialisé votre connexion en deux étapes sur Taskboard',
    factorsResetBody:
      '{owner}, propriétaire de {company}, a réinitialisé la connexion en deux étapes de {email} sur Taskboard\u202f: votre application d’authentification, vos clés d’accès et vos codes de récupération ne fonctionnent plus.{required, select, yes {\n\n{company} exige la connexion en deux étapes\u202f: vous la configurerez de nouveau à votre prochaine connexion.} other {}}\n\nSi vous ne l’avez pas demandé, prévenez {owner} ou un autre propriétaire de {company}, et vérifiez votre compte\u202f:\n{url}',
  },
  ar: {
    someone: 'أحدهم',
    invitationSubject: 'دعاك {inviter} إلى {hasBoard, select, yes {اللوحة {board} في {company}} other {{company}}} على Taskboard',
    invitationBody:
      'دعاك {inviter} للانضمام إلى {hasBoard, select, yes {اللوحة {board} في {company}} other {{company}}} على Taskboard.\n\nاقبل الدعوة (صالحة 7 أيام):\n{url}\n\nإن لم تكن تتوقع هذه الرسالة، فتجاهلها.',
    resetSubject: 'أعد تعيين كلمة مرور Taskboard',
    resetBody:
      'طلب أحدهم إعادة تعيين كلمة مرور {email} على Taskboard.\n\nاختر كلمة مرور جديدة (صالح ساعة واحدة):\n{url}\n\nإن لم تكن أنت، فتجاهل هذه الرسالة: تبقى كلمة مرورك كما هي.',
    assigned: 'أضافك {actor} إلى {hasCard, select, yes {«{card}» في {board}} other {بطاقة}}',
    commented: 'علّق {actor} على {hasCard, select, yes {«{card}» في {board}} other {بطاقة}}',
    replied: 'ردّ {actor} على تعليقك على {hasCard, select, yes {«{card}» في {board}} other {بطاقة}}',
    cheered: 'شجّعك {actor} على {hasCard, select, yes {«{card}» في {board}} other {بطاقة}}',
    ruleNotified: 'تنبّهك قاعدة لوحة إلى {hasCard, select, yes {«{card}» في {board}} other {بطاقة}}',
    reminder:
      '{hasCard, select, yes {«{card}» في {board}} other {بطاقة}} {reminder, select, startOneHour {تبدأ خلال ساعة} startOneDay {تبدأ خلال يوم} dueOneHour {تستحق خلال ساعة} other {تستحق خلال يوم}}',
    mentioned: 'أشار إليك {actor} في {hasCard, select, yes {«{card}» في {board}} other {بطاقة}}',
    overdue: '{hasCard, select, yes {«{card}» في {board}} other {بطاقة}} متأخرة عن موعدها',
    summarySubject:
      'يومك على Taskboard: {dueToday, plural, zero {لا بطاقات تستحق اليوم} one {بطاقة واحدة تستحق اليوم} two {بطاقتان تستحقان اليوم} few {# بطاقات تستحق اليوم} many {# بطاقة تستحق اليوم} other {# بطاقة تستحق اليوم}}، {overdue} متأخرة',
    summaryCard: '«{card}» في {board}، تستحق {due}',
    summaryDueToday: 'تستحق اليوم',
    summaryDueThisWeek: 'تستحق هذا الأسبوع',
    summaryOverdue: 'متأخرة',
    summaryChanges: 'ما تغيّر في بطاقاتك',
    summaryNothing: 'لا شيء',
    summaryFooter: 'يصلك هذا الملخص كل صباح لأنك اخترت ملخصًا يوميًا لإشعاراتك في Taskboard؛ يمكنك تغيير ذلك من إعدادات حسابك.',
    digestSubject:
      '{count, plural, zero {لا إشعارات جديدة على Taskboard} one {إشعار جديد واحد على Taskboard} two {إشعاران جديدان على Taskboard} few {# إشعارات جديدة على Taskboard} many {# إشعارًا جديدًا على Taskboard} other {# إشعار جديد على Taskboard}}',
    digestFooter: 'تصلك هذه الرسائل لأنك فعّلت الإشعارات بالبريد الإلكتروني في Taskboard؛ يمكنك إيقافها من إعدادات حسابك.',
    appOffSubject: 'أُوقف تسجيل الدخول بخطوتين لحسابك على Taskboard',
    appOffBody:
      'أُوقف تسجيل الدخول بخطوتين لـ {email} على Taskboard{hasAddress, select, yes { (من العنوان {address})} other {}}: لم يعد تطبيق المصادقة ولا رموز الاسترداد تعمل، وصارت كلمة المرور وحدها تكفي لتسجيل الدخول.\n\nإن كنت أنت، فلا شيء آخر عليك. وإن لم تكن أنت، فغيّر كلمة مرورك الآن، وأنهِ الجلسات التي لا تعرفها، وأعد إعداد تسجيل الدخول بخطوتين:\n{url}',
    passkeyRemovedSubject: 'أُزيل مفتاح مرور من حسابك على Taskboard',
    passkeyRemovedBody:
      'أُزيل مفتاح المرور «{name}» الخاص بـ {email} على Taskboard{hasAddress, select, yes { (من العنوان {address})} other {}}: لم يعد يسجّل الدخول.\n\nإن كنت أنت، فلا شيء آخر عليك. وإن لم تكن أنت، فغيّر كلمة مرورك الآن، وأنهِ الجلسات التي لا تعرفها، وراجع مفاتيح المرور:\n{url}',
    factorsResetSubject: 'أعاد مالك تعيين تسجيل الدخول بخطوتين لحسابك على Taskboard',
    factorsResetBody:
      'أعاد {owner}، وهو مالك في {company}، تعيين تسجيل الدخول بخطوتين لـ {email} على Taskboard: لم يعد تطبيق المصادقة ولا مفاتيح المرور ولا رموز الاسترداد تعمل.{required, select, yes {\n\nتشترط {company} تسجيل الدخول بخطوتين: ستعدّه من جديد عند تسجيل دخولك التالي.} other {}}\n\nإن لم تطلب ذلك، فأخبر {owner} أو مالكًا آخر في {company}، وراجع حسابك:\n{url}',
  },
};

/** The catalogues, for the test that holds every language to the English keys and arguments. */
export const mailCatalogues: Readonly<Record<Language, Readonly<Record<MailMessage, string>>>> = catalogues;

/** The first of the given languages Taskboard speaks; English when none is. */
export function mailLanguage(...choices: readonly (string | null | undefined)[]): Language {
  for (const choice of choices) if ((LANGUAGES as readonly string[]).includes(choice ?? '')) return choice as Language;
  return 'en';
}

const compiled = new Map<string, IntlMessageFormat>();

/** A mail's message in `language`, its arguments filled in. */
export function mailText(language: Language, message: MailMessage, values?: Record<string, string | number>): string {
  const key = `${language}:${message}`;
  let format = compiled.get(key);
  if (!format) {
    format = new IntlMessageFormat(catalogues[language][message], language, undefined, { ignoreTag: true });
    compiled.set(key, format);
  }
  return String(format.format(values));
}
