"""Vocabulary of the synthetic corpus, authored for this project (en → de, fr, es).

Person nouns are chosen so that the masculine and feminine forms *differ* in every target
language: an epicene noun (fr "journaliste", es "periodista") would carry no gender signal,
so such professions are left out. English words are the gender-neutral ones in common use.

German masculine "weak" nouns (n-declension) take -(e)n outside the nominative singular
("den Chirurgen", "dem Nachbarn"); ``de_weak`` holds that suffix.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PersonNoun:
    en: str
    de_m: str
    de_f: str
    fr_m: str
    fr_f: str
    es_m: str
    es_f: str
    de_weak: str = ""  # suffix of the weak masculine outside the nominative: "en", "n" or ""

    def forms(self, lang: str) -> tuple[str, str]:
        """(masculine, feminine) in ``lang``; ``en`` gives the English noun twice."""
        if lang == "en":
            return self.en, self.en
        return getattr(self, f"{lang}_m"), getattr(self, f"{lang}_f")


def _n(en, de_m, de_f, fr_m, fr_f, es_m, es_f, weak=""):
    return PersonNoun(en, de_m, de_f, fr_m, fr_f, es_m, es_f, weak)


PROFESSIONS: tuple[PersonNoun, ...] = (
    _n("developer", "Entwickler", "Entwicklerin", "développeur", "développeuse", "desarrollador", "desarrolladora"),
    _n("teacher", "Lehrer", "Lehrerin", "enseignant", "enseignante", "maestro", "maestra"),
    _n("lawyer", "Anwalt", "Anwältin", "avocat", "avocate", "abogado", "abogada"),
    _n("engineer", "Ingenieur", "Ingenieurin", "ingénieur", "ingénieure", "ingeniero", "ingeniera"),
    _n("cook", "Koch", "Köchin", "cuisinier", "cuisinière", "cocinero", "cocinera"),
    _n("baker", "Bäcker", "Bäckerin", "boulanger", "boulangère", "panadero", "panadera"),
    _n("dancer", "Tänzer", "Tänzerin", "danseur", "danseuse", "bailarín", "bailarina"),
    _n("writer", "Schriftsteller", "Schriftstellerin", "écrivain", "écrivaine", "escritor", "escritora"),
    _n("programmer", "Programmierer", "Programmiererin", "programmeur", "programmeuse", "programador", "programadora"),
    _n("salesperson", "Verkäufer", "Verkäuferin", "vendeur", "vendeuse", "vendedor", "vendedora"),
    _n("driver", "Fahrer", "Fahrerin", "chauffeur", "chauffeuse", "conductor", "conductora"),
    _n("mechanic", "Mechaniker", "Mechanikerin", "mécanicien", "mécanicienne", "mecánico", "mecánica"),
    _n("gardener", "Gärtner", "Gärtnerin", "jardinier", "jardinière", "jardinero", "jardinera"),
    _n("farmer", "Landwirt", "Landwirtin", "agriculteur", "agricultrice", "agricultor", "agricultora"),
    _n("pharmacist", "Apotheker", "Apothekerin", "pharmacien", "pharmacienne", "farmacéutico", "farmacéutica"),
    _n("nurse", "Krankenpfleger", "Krankenpflegerin", "infirmier", "infirmière", "enfermero", "enfermera"),
    _n("researcher", "Forscher", "Forscherin", "chercheur", "chercheuse", "investigador", "investigadora"),
    _n("director", "Direktor", "Direktorin", "directeur", "directrice", "director", "directora"),
    _n("consultant", "Berater", "Beraterin", "consultant", "consultante", "consultor", "consultora"),
    _n("hairdresser", "Friseur", "Friseurin", "coiffeur", "coiffeuse", "peluquero", "peluquera"),
    _n("translator", "Übersetzer", "Übersetzerin", "traducteur", "traductrice", "traductor", "traductora"),
    _n("editor", "Redakteur", "Redakteurin", "rédacteur", "rédactrice", "redactor", "redactora"),
    _n("coach", "Trainer", "Trainerin", "entraîneur", "entraîneuse", "entrenador", "entrenadora"),
    _n("worker", "Arbeiter", "Arbeiterin", "ouvrier", "ouvrière", "obrero", "obrera"),
    _n("carpenter", "Tischler", "Tischlerin", "menuisier", "menuisière", "carpintero", "carpintera"),
    _n("plumber", "Installateur", "Installateurin", "plombier", "plombière", "fontanero", "fontanera"),
    _n("butcher", "Metzger", "Metzgerin", "boucher", "bouchère", "carnicero", "carnicera"),
    _n("inventor", "Erfinder", "Erfinderin", "inventeur", "inventrice", "inventor", "inventora"),
    _n("buyer", "Einkäufer", "Einkäuferin", "acheteur", "acheteuse", "comprador", "compradora"),
    _n("cashier", "Kassierer", "Kassiererin", "caissier", "caissière", "cajero", "cajera"),
    _n("surgeon", "Chirurg", "Chirurgin", "chirurgien", "chirurgienne", "cirujano", "cirujana", weak="en"),
    _n("politician", "Politiker", "Politikerin", "politicien", "politicienne", "político", "política"),
    _n("founder", "Gründer", "Gründerin", "fondateur", "fondatrice", "fundador", "fundadora"),
    _n("employee", "Mitarbeiter", "Mitarbeiterin", "employé", "employée", "empleado", "empleada"),
    _n("physicist", "Physiker", "Physikerin", "physicien", "physicienne", "físico", "física"),
    _n("mathematician", "Mathematiker", "Mathematikerin", "mathématicien", "mathématicienne", "matemático", "matemática"),
    _n("historian", "Historiker", "Historikerin", "historien", "historienne", "historiador", "historiadora"),
    _n("fisher", "Fischer", "Fischerin", "pêcheur", "pêcheuse", "pescador", "pescadora"),
    _n("producer", "Produzent", "Produzentin", "producteur", "productrice", "productor", "productora", weak="en"),
    _n("sculptor", "Bildhauer", "Bildhauerin", "sculpteur", "sculptrice", "escultor", "escultora"),
    _n("inspector", "Inspektor", "Inspektorin", "inspecteur", "inspectrice", "inspector", "inspectora"),
    _n("boss", "Chef", "Chefin", "patron", "patronne", "jefe", "jefa"),
    _n("actor", "Schauspieler", "Schauspielerin", "acteur", "actrice", "actor", "actriz"),
    _n("swimmer", "Schwimmer", "Schwimmerin", "nageur", "nageuse", "nadador", "nadadora"),
    _n("musician", "Musiker", "Musikerin", "musicien", "musicienne", "músico", "música"),
)

# Relations used with possessives ("my new neighbour"); not professions, so not exported.
# A few professions that read naturally as relations ("my boss") are shared, as the same
# objects, so that every English person noun has exactly one translation per gender.
RELATIONS: tuple[PersonNoun, ...] = (
    _n("friend", "Freund", "Freundin", "ami", "amie", "amigo", "amiga"),
    _n("neighbour", "Nachbar", "Nachbarin", "voisin", "voisine", "vecino", "vecina", weak="n"),
    _n("cousin", "Cousin", "Cousine", "cousin", "cousine", "primo", "prima"),
) + tuple(p for p in PROFESSIONS if p.en in ("boss", "teacher", "coach"))

PERSON_NOUNS: dict[str, PersonNoun] = {n.en: n for n in PROFESSIONS + RELATIONS}


@dataclass(frozen=True)
class Adjective:
    """An attributive adjective. ``de`` is the stem that takes the German endings; French and
    Spanish give masculine / feminine forms and whether the adjective precedes the noun;
    ``fr_m_vowel`` is the masculine form before a vowel ("nouvel ingénieur") and ``es_m_pre``
    the shortened masculine form before a noun ("buen", "primer")."""

    en: str
    de: str
    fr_m: str
    fr_f: str
    fr_pre: bool
    es_m: str
    es_f: str
    es_pre: bool
    fr_m_vowel: str | None = None
    es_m_pre: str | None = None


PERSON_ADJECTIVES: tuple[Adjective, ...] = (
    Adjective("new", "neu", "nouveau", "nouvelle", True, "nuevo", "nueva", True, fr_m_vowel="nouvel"),
    Adjective("young", "jung", "jeune", "jeune", True, "joven", "joven", False),
    Adjective("experienced", "erfahren", "expérimenté", "expérimentée", False, "experimentado", "experimentada", False),
    Adjective("talented", "talentiert", "talentueux", "talentueuse", False, "talentoso", "talentosa", False),
    Adjective("famous", "berühmt", "célèbre", "célèbre", False, "famoso", "famosa", False),
    Adjective("hard-working", "fleißig", "travailleur", "travailleuse", False, "trabajador", "trabajadora", False),
    Adjective("friendly", "freundlich", "sympathique", "sympathique", False, "amable", "amable", False),
    Adjective("patient", "geduldig", "patient", "patiente", False, "paciente", "paciente", False),
    Adjective("creative", "kreativ", "créatif", "créative", False, "creativo", "creativa", False),
    Adjective("ambitious", "ehrgeizig", "ambitieux", "ambitieuse", False, "ambicioso", "ambiciosa", False),
    Adjective("good", "gut", "bon", "bonne", True, "bueno", "buena", True, es_m_pre="buen"),
    Adjective("careful", "sorgfältig", "soigneux", "soigneuse", False, "cuidadoso", "cuidadosa", False),
    Adjective("clever", "klug", "intelligent", "intelligente", False, "inteligente", "inteligente", False),
)

BEST = Adjective("best", "best", "meilleur", "meilleure", True, "mejor", "mejor", True)
FIRST = Adjective("first", "erst", "premier", "première", True, "primero", "primera", True, es_m_pre="primer")
NEW = PERSON_ADJECTIVES[0]


@dataclass(frozen=True)
class Predicative:
    """A predicative adjective or participle: German does not inflect it, French and Spanish
    agree with the subject; ``es_copula`` is "estar" for states and "ser" for traits."""

    en: str
    de: str
    fr_m: str
    fr_f: str
    es_m: str
    es_f: str
    es_copula: str


STATES: tuple[Predicative, ...] = (
    Predicative("tired", "müde", "fatigué", "fatiguée", "cansado", "cansada", "estar"),
    Predicative("happy", "glücklich", "heureux", "heureuse", "contento", "contenta", "estar"),
    Predicative("ready", "bereit", "prêt", "prête", "listo", "lista", "estar"),
    Predicative("busy", "beschäftigt", "occupé", "occupée", "ocupado", "ocupada", "estar"),
    Predicative("ill", "krank", "malade", "malade", "enfermo", "enferma", "estar"),
    Predicative("surprised", "überrascht", "surpris", "surprise", "sorprendido", "sorprendida", "estar"),
    Predicative("nervous", "nervös", "nerveux", "nerveuse", "nervioso", "nerviosa", "estar"),
    Predicative("angry", "wütend", "fâché", "fâchée", "enfadado", "enfadada", "estar"),
    Predicative("proud", "stolz", "fier", "fière", "orgulloso", "orgullosa", "estar"),
    Predicative("worried", "besorgt", "inquiet", "inquiète", "preocupado", "preocupada", "estar"),
)

TRAITS: tuple[Predicative, ...] = (
    Predicative("talented", "talentiert", "talentueux", "talentueuse", "talentoso", "talentosa", "ser"),
    Predicative("tall", "groß", "grand", "grande", "alto", "alta", "ser"),
    Predicative("rich", "reich", "riche", "riche", "rico", "rica", "ser"),
    Predicative("famous", "berühmt", "célèbre", "célèbre", "famoso", "famosa", "ser"),
    Predicative("ambitious", "ehrgeizig", "ambitieux", "ambitieuse", "ambicioso", "ambiciosa", "ser"),
    Predicative("kind", "nett", "gentil", "gentille", "amable", "amable", "ser"),
    Predicative("creative", "kreativ", "créatif", "créative", "creativo", "creativa", "ser"),
    Predicative("generous", "großzügig", "généreux", "généreuse", "generoso", "generosa", "ser"),
    Predicative("funny", "lustig", "drôle", "drôle", "gracioso", "graciosa", "ser"),
    Predicative("shy", "schüchtern", "timide", "timide", "tímido", "tímida", "ser"),
)


@dataclass(frozen=True)
class Passive:
    """"was <participle>": German "wurde … <participle>", French "a été <participle>" (agrees),
    Spanish "fue <participle>" (agrees)."""

    en: str
    de: str
    fr_m: str
    fr_f: str
    es_m: str
    es_f: str


PASSIVES: tuple[Passive, ...] = (
    Passive("invited", "eingeladen", "invité", "invitée", "invitado", "invitada"),
    Passive("promoted", "befördert", "promu", "promue", "ascendido", "ascendida"),
    Passive("chosen", "ausgewählt", "choisi", "choisie", "elegido", "elegida"),
    Passive("praised", "gelobt", "félicité", "félicitée", "felicitado", "felicitada"),
    Passive("interviewed", "interviewt", "interviewé", "interviewée", "entrevistado", "entrevistada"),
    Passive("hired", "eingestellt", "embauché", "embauchée", "contratado", "contratada"),
    Passive("recognised", "erkannt", "reconnu", "reconnue", "reconocido", "reconocida"),
    Passive("seen", "gesehen", "vu", "vue", "visto", "vista"),
)


@dataclass(frozen=True)
class Motion:
    """Past of an intransitive verb that takes "être" in French (participle agrees).
    German: "ist <time> <de>"; French: "<fr_aux> <participle><fr_rest> <time>";
    Spanish: "<es> <time>"."""

    en: str
    de: str
    fr_aux: str
    fr_m: str
    fr_f: str
    fr_rest: str
    es: str


MOTIONS: tuple[Motion, ...] = (
    Motion("arrived", "angekommen", "est", "arrivé", "arrivée", "", "llegó"),
    Motion("left", "abgereist", "est", "parti", "partie", "", "se fue"),
    Motion("came back", "zurückgekommen", "est", "revenu", "revenue", "", "volvió"),
    Motion("stayed at home", "zu Hause geblieben", "est", "resté", "restée", " à la maison", "se quedó en casa"),
    Motion("fell asleep", "eingeschlafen", "s'est", "endormi", "endormie", "", "se durmió"),
    Motion("went out", "ausgegangen", "est", "sorti", "sortie", "", "salió"),
    Motion("came in", "hereingekommen", "est", "entré", "entrée", "", "entró"),
)

# (en, de, fr, es) time expressions for past events, placed where each language puts them.
PAST_TIMES: tuple[tuple[str, str, str, str], ...] = (
    ("yesterday", "gestern", "hier", "ayer"),
    ("last week", "letzte Woche", "la semaine dernière", "la semana pasada"),
    ("this morning", "heute Morgen", "ce matin", "esta mañana"),
    ("on Monday", "am Montag", "lundi", "el lunes"),
    ("on Friday", "am Freitag", "vendredi", "el viernes"),
    ("last year", "letztes Jahr", "l'année dernière", "el año pasado"),
    ("two days ago", "vor zwei Tagen", "il y a deux jours", "hace dos días"),
    ("last night", "gestern Abend", "hier soir", "anoche"),
)

# (en, de, fr, es); French "à" + city is built by the frames.
CITIES: tuple[tuple[str, str, str, str], ...] = (
    ("Berlin", "Berlin", "Berlin", "Berlín"),
    ("Paris", "Paris", "Paris", "París"),
    ("Madrid", "Madrid", "Madrid", "Madrid"),
    ("Rome", "Rom", "Rome", "Roma"),
    ("London", "London", "Londres", "Londres"),
    ("Vienna", "Wien", "Vienne", "Viena"),
    ("Lisbon", "Lissabon", "Lisbonne", "Lisboa"),
    ("Munich", "München", "Munich", "Múnich"),
    ("Prague", "Prag", "Prague", "Praga"),
    ("Warsaw", "Warschau", "Varsovie", "Varsovia"),
    ("Athens", "Athen", "Athènes", "Atenas"),
    ("Brussels", "Brüssel", "Bruxelles", "Bruselas"),
    ("Milan", "Mailand", "Milan", "Milán"),
    ("Barcelona", "Barcelona", "Barcelone", "Barcelona"),
    ("Lyon", "Lyon", "Lyon", "Lyon"),
    ("Amsterdam", "Amsterdam", "Amsterdam", "Ámsterdam"),
)


@dataclass(frozen=True)
class Organisation:
    """"the <en>": German "at" phrase, French / Spanish "of the" and "at/in the" phrases."""

    en: str
    de_at: str
    fr_of: str
    fr_at: str
    es_of: str
    es_at: str


ORGANISATIONS: tuple[Organisation, ...] = (
    Organisation("company", "in der Firma", "de l'entreprise", "dans l'entreprise", "de la empresa", "en la empresa"),
    Organisation("school", "an der Schule", "de l'école", "à l'école", "de la escuela", "en la escuela"),
    Organisation("hospital", "im Krankenhaus", "de l'hôpital", "à l'hôpital", "del hospital", "en el hospital"),
    Organisation("bank", "bei der Bank", "de la banque", "à la banque", "del banco", "en el banco"),
    Organisation("museum", "im Museum", "du musée", "au musée", "del museo", "en el museo"),
    Organisation("library", "in der Bibliothek", "de la bibliothèque", "à la bibliothèque", "de la biblioteca", "en la biblioteca"),
    Organisation("university", "an der Universität", "de l'université", "à l'université", "de la universidad", "en la universidad"),
    Organisation("restaurant", "im Restaurant", "du restaurant", "au restaurant", "del restaurante", "en el restaurante"),
    Organisation("hotel", "im Hotel", "de l'hôtel", "à l'hôtel", "del hotel", "en el hotel"),
    Organisation("theatre", "im Theater", "du théâtre", "au théâtre", "del teatro", "en el teatro"),
)


@dataclass(frozen=True)
class Thing:
    """A concrete noun with its grammatical gender in each target language (m / f / n)."""

    en: str
    de: str
    de_g: str
    fr: str
    fr_g: str
    es: str
    es_g: str


THINGS: tuple[Thing, ...] = (
    Thing("book", "Buch", "n", "livre", "m", "libro", "m"),
    Thing("table", "Tisch", "m", "table", "f", "mesa", "f"),
    Thing("chair", "Stuhl", "m", "chaise", "f", "silla", "f"),
    Thing("car", "Auto", "n", "voiture", "f", "coche", "m"),
    Thing("door", "Tür", "f", "porte", "f", "puerta", "f"),
    Thing("window", "Fenster", "n", "fenêtre", "f", "ventana", "f"),
    Thing("bag", "Tasche", "f", "sac", "m", "bolso", "m"),
    Thing("cup", "Tasse", "f", "tasse", "f", "taza", "f"),
    Thing("lamp", "Lampe", "f", "lampe", "f", "lámpara", "f"),
    Thing("bicycle", "Fahrrad", "n", "vélo", "m", "bicicleta", "f"),
    Thing("key", "Schlüssel", "m", "clé", "f", "llave", "f"),
    Thing("phone", "Telefon", "n", "téléphone", "m", "teléfono", "m"),
    Thing("computer", "Computer", "m", "ordinateur", "m", "ordenador", "m"),
    Thing("house", "Haus", "n", "maison", "f", "casa", "f"),
    Thing("box", "Kiste", "f", "boîte", "f", "caja", "f"),
    Thing("bottle", "Flasche", "f", "bouteille", "f", "botella", "f"),
    Thing("letter", "Brief", "m", "lettre", "f", "carta", "f"),
    Thing("jacket", "Jacke", "f", "veste", "f", "chaqueta", "f"),
    Thing("hat", "Hut", "m", "chapeau", "m", "sombrero", "m"),
    Thing("clock", "Uhr", "f", "horloge", "f", "reloj", "m"),
    Thing("plate", "Teller", "m", "assiette", "f", "plato", "m"),
    Thing("picture", "Bild", "n", "tableau", "m", "cuadro", "m"),
    Thing("bed", "Bett", "n", "lit", "m", "cama", "f"),
    Thing("umbrella", "Regenschirm", "m", "parapluie", "m", "paraguas", "m"),
    Thing("ball", "Ball", "m", "ballon", "m", "pelota", "f"),
    Thing("shirt", "Hemd", "n", "chemise", "f", "camisa", "f"),
    Thing("newspaper", "Zeitung", "f", "journal", "m", "periódico", "m"),
    Thing("pen", "Stift", "m", "stylo", "m", "bolígrafo", "m"),
    Thing("glass", "Glas", "n", "verre", "m", "vaso", "m"),
    Thing("coat", "Mantel", "m", "manteau", "m", "abrigo", "m"),
)


@dataclass(frozen=True)
class Colour:
    """An adjective for things (colours, size, age, state)."""

    en: str
    de: str
    fr_m: str
    fr_f: str
    es_m: str
    es_f: str
    fr_pre: bool = False
    fr_m_vowel: str | None = None
    es_copula: str = "es"  # "está" for a state ("rota"), "es" for a property


THING_ADJECTIVES: tuple[Colour, ...] = (
    Colour("red", "rot", "rouge", "rouge", "rojo", "roja"),
    Colour("blue", "blau", "bleu", "bleue", "azul", "azul"),
    Colour("green", "grün", "vert", "verte", "verde", "verde"),
    Colour("black", "schwarz", "noir", "noire", "negro", "negra"),
    Colour("white", "weiß", "blanc", "blanche", "blanco", "blanca"),
    Colour("yellow", "gelb", "jaune", "jaune", "amarillo", "amarilla"),
    Colour("grey", "grau", "gris", "grise", "gris", "gris"),
    Colour("small", "klein", "petit", "petite", "pequeño", "pequeña", fr_pre=True),
    Colour("old", "alt", "vieux", "vieille", "viejo", "vieja", fr_pre=True, fr_m_vowel="vieil"),
    Colour("broken", "kaputt", "cassé", "cassée", "roto", "rota", es_copula="está"),
    Colour("heavy", "schwer", "lourd", "lourde", "pesado", "pesada"),
)

# "The <thing> is <place>." — (en, de, fr, es)
PLACES: tuple[tuple[str, str, str, str], ...] = (
    ("on the table", "auf dem Tisch", "sur la table", "sobre la mesa"),
    ("in the kitchen", "in der Küche", "dans la cuisine", "en la cocina"),
    ("in the garden", "im Garten", "dans le jardin", "en el jardín"),
    ("under the bed", "unter dem Bett", "sous le lit", "debajo de la cama"),
    ("next to the door", "neben der Tür", "à côté de la porte", "junto a la puerta"),
    ("in the office", "im Büro", "au bureau", "en la oficina"),
    ("in the car", "im Auto", "dans la voiture", "en el coche"),
    ("in the living room", "im Wohnzimmer", "dans le salon", "en el salón"),
    ("at the station", "am Bahnhof", "à la gare", "en la estación"),
    ("behind the house", "hinter dem Haus", "derrière la maison", "detrás de la casa"),
)

# Cardinal numbers 1-12: (en, de, fr, es). German "eins" is "ein" before "Uhr".
NUMBERS: tuple[tuple[str, str, str, str], ...] = (
    ("one", "ein", "une", "una"), ("two", "zwei", "deux", "dos"), ("three", "drei", "trois", "tres"),
    ("four", "vier", "quatre", "cuatro"), ("five", "fünf", "cinq", "cinco"), ("six", "sechs", "six", "seis"),
    ("seven", "sieben", "sept", "siete"), ("eight", "acht", "huit", "ocho"), ("nine", "neun", "neuf", "nueve"),
    ("ten", "zehn", "dix", "diez"), ("eleven", "elf", "onze", "once"), ("twelve", "zwölf", "douze", "doce"),
)

# (en, de, fr, es): "The weather is <en> in <city> today." — French and Spanish use an
# impersonal verb, so their entries are whole clauses.
WEATHER: tuple[tuple[str, str, str, str], ...] = (
    ("nice", "schön", "Il fait beau", "Hace buen tiempo"),
    ("cold", "kalt", "Il fait froid", "Hace frío"),
    ("warm", "warm", "Il fait chaud", "Hace calor"),
    ("bad", "schlecht", "Il fait mauvais", "Hace mal tiempo"),
)
