"""The multilingual phrase lists behind `indexer.sections`: section headings by kind, and the
sentence-level phrases of equal-opportunity and legal text. Data only (folded tokens, as
`indexer.text.tokenize` produces them, joined by spaces), kept apart from the rules.

Field labels such as "Salary:" or "Location:" are deliberately not headings: in "Salary: Band
4" they introduce a value, and taking them as the start of a benefits section turned the rest
of many NHS ads into "offer".
"""

from __future__ import annotations

# Folded phrases (the tokens of `tokenize`, joined by spaces) that name a section, by kind.
LEXICON = {
    "intro": "job overview|job summary|overview|summary|introduction|job introduction",
    "company": "about us|about the company|about the trust|about our trust|about the organisation"
    "|about the organization|about our organisation|about the practice|about our practice"
    "|about the employer|about your next employer|about the team|about our team|about the service"
    "|about our service|about the hospital|who we are|who are we|our company|our story|our mission"
    "|our values|the company|company overview|company profile|the organisation|the organization"
    "|employer certification accreditation badges|where you will be working|our trust"
    "|qui sommes nous|l entreprise|notre entreprise|la societe|notre societe|a propos de nous"
    "|presentation de l entreprise|nos valeurs|over ons|wie zijn wij|wie zijn we|wie wij zijn"
    "|het bedrijf|ons bedrijf|onze organisatie|over het bedrijf|uber uns|wer wir sind|unternehmen"
    "|das unternehmen|unser unternehmen|unternehmensprofil|sobre nosotros|quienes somos|la empresa"
    "|nuestra empresa|chi siamo|l azienda|la nostra azienda|o nas|o firmie|kim jestesmy|despre noi"
    "|despre companie|rolunk|a cegrol|sobre nos|quem somos|a empresa|o tvrtki|par mums|meist",
    "tasks": "your role|the role|job role|about the role|role description|role purpose|job purpose"
    "|your responsibilities|responsibilities|key responsibilities|main responsibilities|duties"
    "|key duties|main duties|main duties of the job|duties and responsibilities"
    "|job responsibilities|job description|detailed job description and main responsibilities"
    "|about the job|the position|about the position|what you will do|what you ll do"
    "|what you will be doing|what you ll be doing|your day to day|day to day|tasks|main tasks"
    "|your tasks|key tasks|your mission|the opportunity|vos missions|missions|votre mission"
    "|missions principales|vos taches|taches|taches principales|le poste|description du poste"
    "|descriptif du poste|vos responsabilites|responsabilites|votre role|jouw taken|je taken"
    "|uw taken|de taken|functieomschrijving|de functie|wat ga je doen|wat ga jij doen|jouw functie"
    "|werkzaamheden|verantwoordelijkheden|ihre aufgaben|deine aufgaben|aufgaben|ihr aufgabengebiet"
    "|dein aufgabengebiet|aufgabengebiet|stellenbeschreibung|die stelle|das erwartet sie"
    "|das erwartet dich|ihre tatigkeiten|tatigkeiten|funciones|tus funciones|responsabilidades"
    "|descripcion del puesto|el puesto|tareas|mansioni|responsabilita|attivita|la posizione"
    "|zakres obowiazkow|obowiazki|twoj zakres obowiazkow|opis stanowiska|opis poslova|opis posla"
    "|responsabilitati|descrierea postului|feladatok|feladatai|funcoes|descricao da funcao|o poslu"
    "|opis radnog mjesta|vase odgovornosti|tooulesanded|darba pienakumi|galvenie darba pienakumi"
    "|galvenie amata pienakumi|mes tev uzticesim",
    "profile": "your profile|profile|the person|about you|who you are|who we are looking for"
    "|who we re looking for|what we are looking for|what we re looking for|you will have"
    "|you ll have|you ll need|you will need|what you ll need|what you will need|what you need"
    "|what you bring|requirements|job requirements|essential requirements|minimum requirements"
    "|skills|skills and experience|key skills|qualifications|essential|desirable|criteria"
    "|person specification|candidate profile|the ideal candidate|ideal candidate|profil"
    "|votre profil|profil recherche|le profil|competences|competences requises|vous etes"
    "|ce que nous recherchons|jouw profiel|je profiel|uw profiel|profiel|wat vragen wij"
    "|wat vragen we|wij vragen|functie eisen|functieeisen|wat breng je mee|wie ben jij"
    "|wie zoeken wij|wie zoeken we|ihr profil|dein profil|anforderungen|ihre qualifikationen"
    "|qualifikationen|was du mitbringst|was sie mitbringen|das bringst du mit|das bringen sie mit"
    "|voraussetzungen|perfil|requisitos|tu perfil|requisiti|profilo|il candidato ideale|competenze"
    "|wymagania|wymagania niezbedne|oczekujemy|nasze wymagania|mile widziane|uvjeti|cerinte"
    "|profilul candidatului|elvarasok|elvarasaink|ootused kandidaadile|sinult ootame|muud nouded"
    "|prasibas|prasibas kandidatam|zahtjevi|nasa ocekivanja|sto ocekujemo|reikalavimai",
    "offer": "what we offer|what we can offer|what we can offer you|what we offer you|we offer"
    "|our offer|our offer to you|benefits|benefit|the benefits|your benefits|benefits package"
    "|benefit package|perks|why join us|why work for us|why us|why|what you will get|what you get"
    "|what s in it for you|in return|rewards|salary and benefits|pay and benefits|nous offrons"
    "|nous vous offrons|ce que nous offrons|ce que nous vous offrons|avantages|vos avantages"
    "|nos avantages|pourquoi nous rejoindre|pourquoi|wat bieden wij|wat bieden we|wij bieden"
    "|wat wij bieden|ons aanbod|arbeidsvoorwaarden|wat krijg je|wat mag je verwachten|waarom"
    "|wir bieten|was wir bieten|wir bieten ihnen|wir bieten dir|unser angebot|das bieten wir|warum"
    "|deine vorteile|ihre vorteile|vorteile|ofrecemos|que ofrecemos|te ofrecemos|beneficios"
    "|offriamo|cosa offriamo|oferujemy|co oferujemy|nudimo|oferim|beneficii|amit kinalunk|kinalunk"
    "|oferecemos|o que oferecemos|sto nudimo|siulome|mes piedavajam|omalt poolt pakume|pakume"
    "|darba devejs piedava|piedavajam",
    "equal_opportunity": "equal opportunities|equal opportunity|equal opportunities employer"
    "|equality|equality and diversity|equality diversity and inclusion|diversity"
    "|diversity and inclusion|disability confident|disability confident committed"
    "|disability confident committed employer|egalite des chances|diversite|diversite et inclusion"
    "|handicap|gelijke kansen|diversiteit|diversiteit en inclusie|chancengleichheit|vielfalt"
    "|diversitat|gleichstellung|igualdad de oportunidades|diversidad|pari opportunita|diversita"
    "|rownosc szans",
    "apply": "how to apply|to apply|apply|apply now|application|applications|application process"
    "|contact|contact us|contact details|contact information|additional contact information"
    "|for further details informal visits contact|for further details contact"
    "|for further information please contact|further details|informal visits|interested|next steps"
    "|what next|what s next|what happens next|recruitment process|postuler|comment postuler"
    "|pour postuler|candidature|candidater|interesse|interessiert|solliciteren|sollicitatie"
    "|hoe solliciteer je|reageren|bewerbung|bewerben|so bewirbst du dich|so bewerben sie sich"
    "|jetzt bewerben|ihre bewerbung|deine bewerbung|kontakt|ansprechpartner|ihr ansprechpartner"
    "|como aplicar|como postularse|contacto|come candidarsi|contatti|sposob aplikowania|aplikuj"
    "|prijava|aplicare|jelentkezes|como candidatar",
    "legal": "disclaimer|legal|legal notice|privacy|privacy notice|privacy policy|data protection"
    "|gdpr|cookies|cookie policy|safeguarding|disclosure|disclosure and barring service"
    "|disclosure and barring service check|dbs|dbs check|criminal records check|mentions legales"
    "|protection des donnees|donnees personnelles|rgpd|privacyverklaring|datenschutz"
    "|datenschutzhinweis|datenschutzhinweise|impressum|rechtliche hinweise|proteccion de datos"
    "|aviso legal|informativa privacy|rodo|klauzula informacyjna",
    "other": "additional information|further information|more information|other information"
    "|important|important information|additional job description|job details|details"
    "|general information|informations complementaires|informations pratiques"
    "|aanvullende informatie|overige informatie|meer informatie|weitere informationen|sonstiges"
    "|zusatzliche informationen|informacion adicional|informazioni aggiuntive|dodatkowe informacje"
    "|informacje dodatkowe",
}

# Sentence-level phrases for equal-opportunity and legal text that stands without a heading,
# over folded tokens: "word*" is a prefix, "<who>" a protected characteristic. Kept specific:
# "vielfalt" or "diversite" alone also mean "variety" and stay heading-only, and "handicap"
# alone is the work itself in care jobs ("accompagner des personnes en situation de handicap").
EEO_PHRASES = (
    "equal opportunit*|equal employment opportunit*|equality and|equality of|equality diversity"
    "|diversity and inclusion|inclusive employer|disability confident|we welcome applications from"
    "|applications are welcome from|without regard to|protected characteristic*|regardless of <who>"
    "|irrespective of <who>|unabhangig von <who>|ongeacht|sans distinction|rqth|handi accueillant"
    "|ouvert* aux personnes en situation de handicap|ouvert* aux personnes handicapees"
    "|accessible* aux personnes en situation de handicap|travailleurs handicapes"
    "|egalite des chances|gelijke kansen|chancengleichheit|schwerbehindert*"
    "|igualdad de oportunidades|pari opportunita|diversite et inclusion"
)
LEGAL_PHRASES = (
    "cookie*|privacy policy|privacy notice|privacy statement|privacyverklaring|privacybeleid"
    "|datenschutz*|data protection|personal data|donnees personnel*|donnees a caractere personnel*"
    "|persoonsgegevens|personenbezogen*|rgpd|gdpr|dsgvo|rodo|dati personali|datos personales"
    "|all rights reserved|copyright"
)
WHO = (
    r"(?:their |your |of )?(?:age|race|gender|sex|religio|belief|disabilit|ethnic|background"
    r"|origin|nationalit|colou?r|marital|pregnan|geschlecht|alter|herkunft|behinderung|sexuell"
    r"|ethnisch|leeftijd|geslacht|afkomst|geaardheid|religie|handicap)\w*"
)
