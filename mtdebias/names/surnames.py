"""Common surnames of several origins, authored for the full-name probe lists.

Chosen so that the surname carries no gender: no forms that change with the bearer's gender
(Polish -ski/-ska, Russian -ov/-ova, Czech -ová and Greek -os/-ou pairs are avoided;
"Georgiou" is invariant), and none that US birth records give as a common first name: every
surname here has an SSA first-name count below 10,000 over 1880-2017 (checked by
tests/test_names.py), so "Martin", "Kelly" or "Taylor" cannot tip a full name's gender.
Spelled in Latin script with the diacritics the name keeps in its own language.
"""

SURNAMES: tuple[str, ...] = (
    # English / Scottish / Welsh
    "Smith", "Johnson", "Brown", "Jones", "Miller", "Hall", "Young", "Wright", "Hill", "Green",
    "Baker", "Adams", "Roberts", "Turner", "Phillips", "Campbell", "Evans", "Edwards",
    "Collins", "Cook", "Bell", "Murphy", "Cox", "Watson", "Hughes", "Price", "Wood", "Barnes",
    "Fisher", "Webb",
    # Irish
    "O'Brien", "Byrne", "McCarthy", "Gallagher", "Kavanagh",
    # German / Austrian / Swiss
    "Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz",
    "Hoffmann", "Koch", "Richter", "Wolf", "Schröder", "Neumann", "Zimmermann",
    # Dutch / Flemish
    "de Vries", "van Dijk", "Bakker", "Visser", "Smit", "Janssens", "Peeters",
    # Scandinavian
    "Hansen", "Nielsen", "Andersson", "Lindqvist", "Berg", "Johansen", "Virtanen", "Korhonen",
    # French
    "Dubois", "Durand", "Lefebvre", "Moreau", "Laurent", "Girard", "Rousseau", "Fontaine",
    "Chevalier", "Mercier",
    # Italian
    "Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci", "Marino",
    "Greco", "Conti",
    # Spanish / Latin American
    "García", "Rodríguez", "Martínez", "López", "González", "Pérez", "Sánchez", "Ramírez",
    "Torres", "Flores", "Rivera", "Gómez", "Díaz", "Morales", "Ortiz", "Castillo",
    # Portuguese / Brazilian
    "Silva", "Oliveira", "Pereira", "Costa", "Ferreira", "Almeida", "Carvalho",
    # Polish / Czech / Slovak / Hungarian (gender-invariant forms only)
    "Nowak", "Wójcik", "Kowalczyk", "Mazur", "Krawczyk", "Dvořák", "Novák", "Horváth", "Nagy",
    "Tóth", "Szabó", "Kovács",
    # Greek / Turkish / Armenian
    "Georgiou", "Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Petrosyan", "Hakobyan",
    # Arabic / Persian
    "Haddad", "Mansour", "Nasser", "Saleh", "Hosseini", "Karimi", "Rahimi",
    # South Asian
    "Patel", "Sharma", "Singh", "Gupta", "Iyer", "Reddy", "Chowdhury", "Banerjee", "Nair",
    "Mehta", "Rao", "Joshi",
    # East and South-East Asian
    "Wang", "Li", "Zhang", "Liu", "Chen", "Huang", "Zhao", "Wu", "Zhou", "Xu", "Park", "Choi",
    "Jung", "Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Yamamoto", "Nguyen", "Tran",
    "Pham", "Le", "Santos-Reyes", "Bautista",
    # African
    "Okafor", "Okonkwo", "Adeyemi", "Balogun", "Mensah", "Owusu", "Kamau", "Mwangi", "Odhiambo",
    "Dlamini", "Nkosi", "Diallo", "Traoré", "Abebe", "Tesfaye",
    # more English, German, French, Italian, Spanish, Portuguese and East Asian surnames
    "Robinson", "Thompson", "Moore", "White", "Jenkins", "Palmer", "Holmes", "Chapman",
    "Henderson", "Gibson", "Knight", "Schwarz", "Krüger", "Hartmann", "Lange", "Krause",
    "Lehmann", "Köhler", "Lambert", "Bonnet", "Faure", "Garnier", "Gauthier", "Perrin",
    "Lombardi", "Moretti", "Barbieri", "Fontana", "Santoro", "Navarro", "Romero", "Herrera",
    "Medina", "Vargas", "Castro", "Jiménez", "Moreno", "Ruiz", "Gutiérrez", "Ribeiro", "Sousa",
    "Nakamura", "Kobayashi", "Yoshida", "Lim", "Wong", "Yang", "Lin",
)
